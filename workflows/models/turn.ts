/**
 * **Turn**: one model turn's state (pure): the chat of this turn (the human's messages, the
 * model's answers, tool calls and their results) and the ledger of tool calls decided in this
 * turn (what the human sent meanwhile is the listener's, `listening.ts`). The ledger is what keeps an approved
 * or running tool from running twice: a call the model repeats after an interruption (same tool,
 * same arguments) gets the first one's result instead of a second approval or run.
 */
import type { ChatMessage, ChatToolCall, ChatToolResult } from '../../protocol/models';
import type { InboundMessage } from '../../protocol/conversations';

/** The most characters of one message a model is shown by default (`maxMessageChars`). */
export const DEFAULT_MAX_MESSAGE_CHARS = 4096;

/**
 * A message from the human as the model reads it: its text, or what kind of message it was (one
 * amsflow could not read shows only the kind it claimed); cut at `maxChars` characters, saying
 * so (a message of 900 KB is no question a model should pay for), and saying so too when the
 * poll already cut it (`truncated`).
 */
export function humanText(message: InboundMessage, maxChars = DEFAULT_MAX_MESSAGE_CHARS): string {
  const m = message as InboundMessage &
    Record<
      string,
      { body?: unknown; caption?: unknown; emoji?: unknown; filename?: unknown; type?: unknown }
    >;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  let text: string;
  if (message.type === 'text') text = str(m.text?.body);
  else if (message.type === 'reaction') text = `[reacted ${str(m.reaction?.emoji)}]`;
  else if (message.type === 'unknown') {
    // A message the client could not read (messaging/page-members.ts): say what kind it claimed
    // to be, never its content (which may be anything a hostile sender chose).
    const kind = str(m.unknown?.type);
    text = kind ? `[a ${kind} message amsflow could not read]` : '[a message amsflow could not read]';
  } else {
    const media = m[message.type];
    const filename = str(media?.filename);
    const label = filename ? `${message.type}: ${filename}` : message.type;
    const caption = str(media?.caption);
    text = caption ? `[${label}] ${caption}` : `[${label}]`;
  }
  const shown =
    text.length <= maxChars
      ? text
      : `${text.slice(0, maxChars)}… (cut: the message had ${text.length} characters)`;
  const truncated = (message as { truncated?: { originalBytes?: unknown } }).truncated;
  return truncated && typeof truncated.originalBytes === 'number' && message.type !== 'unknown'
    ? `${shown} (cut on the way: the message had ${truncated.originalBytes} bytes)`
    : shown;
}

/** JSON with object keys sorted: the same arguments give the same key, whatever their order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The most characters of one tool result kept in the chat (and in memory). */
export const MAX_RESULT_CHARS = 8000;

/** A tool's output as the chat keeps it: JSON-able, and cut when too long. */
export function keptOutput(output: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(output);
  } catch {
    return String(output);
  }
  if (json === undefined) return null;
  return json.length > MAX_RESULT_CHARS
    ? `${json.slice(0, MAX_RESULT_CHARS)}… (cut: ${json.length} characters)`
    : output;
}

export class Turn {
  /** This turn's chat, in order. */
  readonly chat: ChatMessage[] = [];
  /** The human's latest message: typing shows on it, the answer quotes it. */
  latest: InboundMessage;
  /** Model calls made so far. */
  steps = 0;
  private readonly ledger = new Map<string, Pick<ChatToolResult, 'output' | 'isError'>>();

  constructor(
    messages: readonly InboundMessage[],
    /** The most characters of one message the model is shown. */
    private readonly maxMessageChars = DEFAULT_MAX_MESSAGE_CHARS,
  ) {
    this.latest = messages[0];
    for (const message of messages) this.addHuman(message);
  }

  addHuman(message: InboundMessage): void {
    this.latest = message;
    this.chat.push({ role: 'user', text: humanText(message, this.maxMessageChars) });
  }

  /** The model's answer with the tool calls it asked for, and every call's result (never one without the other). */
  addStep(text: string, calls: readonly ChatToolCall[], results: readonly ChatToolResult[]): void {
    this.chat.push({ role: 'assistant', text, ...(calls.length ? { toolCalls: [...calls] } : {}) });
    if (results.length) this.chat.push({ role: 'tool', results: [...results] });
  }

  /** What an earlier identical call (same tool, same arguments) came to in this turn, if any. */
  decided(name: string, input: unknown): Pick<ChatToolResult, 'output' | 'isError'> | undefined {
    return this.ledger.get(`${name} ${stableJson(input)}`);
  }

  /** Records what a call came to: run (its output), refused, not approved, failed. */
  decide(name: string, input: unknown, outcome: Pick<ChatToolResult, 'output' | 'isError'>): void {
    this.ledger.set(`${name} ${stableJson(input)}`, outcome);
  }
}
