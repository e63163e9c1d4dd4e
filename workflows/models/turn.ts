/**
 * **Turn**: one model turn's state (pure): the chat of this turn (the human's messages, the
 * model's answers, tool calls and their results) and the ledger of tool calls decided in this
 * turn (what the human sent meanwhile is the listener's, `listening.ts`). The ledger is what keeps an approved
 * or running tool from running twice: a call the model repeats after an interruption (same tool,
 * same arguments) gets the first one's result instead of a second approval or run.
 */
import type { ChatMessage, ChatToolCall, ChatToolResult } from '../../protocol/models';
import type { InboundMessage } from '../../protocol';

/** A message from the human as the model reads it: its text, or what kind of message it was. */
export function humanText(message: InboundMessage): string {
  const m = message as InboundMessage &
    Record<string, { body?: string; caption?: string; emoji?: string; filename?: string }>;
  if (message.type === 'text') return m.text?.body ?? '';
  if (message.type === 'reaction') return `[reacted ${m.reaction?.emoji ?? ''}]`;
  const media = m[message.type];
  const label = media?.filename ? `${message.type}: ${media.filename}` : message.type;
  return media?.caption ? `[${label}] ${media.caption}` : `[${label}]`;
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

  constructor(messages: readonly InboundMessage[]) {
    this.latest = messages[0];
    for (const message of messages) this.addHuman(message);
  }

  addHuman(message: InboundMessage): void {
    this.latest = message;
    this.chat.push({ role: 'user', text: humanText(message) });
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
