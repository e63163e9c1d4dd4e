/**
 * The chat as amsflow keeps it (`ChatMessage`, protocol/models.ts) turned into the AI SDK's
 * `ModelMessage`s, and a model's tool calls back into amsflow's shape (pure). A tool call's input
 * is whatever the model wrote: the workflow checks it against the tool's schema before anything
 * runs. And the human's clock, which a turn with reminder tools shows the model.
 */
import type { ModelMessage, ToolResultPart } from 'ai';
import { WEEKDAYS, zonedDateTime } from '../core/zoned-time';
import type { ChatMessage, ChatToolResult, ModelToolCall } from '../protocol/models';

type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

/** `value` as JSON (a tool's output is JSON by contract; anything else is stringified). */
function asJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    // A BigInt or a cycle: nothing a tool should return; the model sees that it was unreadable.
    return '[not JSON]';
  }
}

function resultPart(result: ChatToolResult): ToolResultPart {
  const output: ToolResultPart['output'] = result.isError
    ? {
        type: 'error-text',
        value: typeof result.output === 'string' ? result.output : JSON.stringify(asJson(result.output)),
      }
    : { type: 'json', value: asJson(result.output) };
  return { type: 'tool-result', toolCallId: result.id, toolName: result.name, output };
}

/** amsflow's chat as the AI SDK's messages. */
export function toModelMessages(chat: readonly ChatMessage[]): ModelMessage[] {
  return chat.map((message): ModelMessage => {
    if (message.role === 'user') return { role: 'user', content: message.text };
    if (message.role === 'tool') return { role: 'tool', content: message.results.map(resultPart) };
    const calls = message.toolCalls ?? [];
    if (calls.length === 0) return { role: 'assistant', content: message.text };
    return {
      role: 'assistant',
      content: [
        ...(message.text ? [{ type: 'text' as const, text: message.text }] : []),
        ...calls.map((c) => ({
          type: 'tool-call' as const,
          toolCallId: c.id,
          toolName: c.name,
          input: c.input,
        })),
      ],
    };
  });
}

/** What the AI SDK reports of a tool call (valid or not; no `execute`, so nothing ran). */
export interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
}

/** A model's tool calls in amsflow's shape: an input that was not JSON is kept as text, with why. */
export function fromSdkToolCalls(calls: readonly SdkToolCall[]): ModelToolCall[] {
  return calls.map((call) => {
    const notJson = call.invalid === true && typeof call.input === 'string';
    return {
      id: call.toolCallId,
      name: call.toolName,
      input: call.input ?? {},
      ...(notJson ? { problem: 'the input is not JSON' } : {}),
    };
  });
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number) => String(n).padStart(2, '0');

/** The human's clock at `at` in `zone`, as the system prompt ends when a turn asks for it. */
export function clockLine(at: number, zone: string): string {
  const t = zonedDateTime(at, zone);
  const day = DAYS[WEEKDAYS.indexOf(t.weekday)];
  return `The human's clock: ${day} ${t.year}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)} (${zone}). Reminders are set in that time zone.`;
}
