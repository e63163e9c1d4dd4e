/**
 * The rules of a question, pure: which words cancel, which words are side commands, when the
 * nudges of a silent human are due, and whether an answer parses (else the re-ask text).
 * `prompt` and `firstOf` wire them to the conversation; unit tests drive them without a server.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { textOf } from './text';
import type { InboundMessage } from '../../protocol/conversations';

/** Words that cancel the waiting conversation unless a conversation or call sets its own. */
export const DEFAULT_CANCEL_WORDS: readonly string[] = ['cancel', '/cancel'];

/** The key a text is compared on: trimmed, lower case, one leading slash removed. */
export function wordOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const word = text.trim().toLowerCase();
  return word.startsWith('/') ? word.slice(1) : word;
}

/** True when `message` is exactly one of `words` (case, spaces and a leading slash ignored). */
export function isCancelWord(message: InboundMessage, words: readonly string[]): boolean {
  const word = wordOf(textOf(message));
  return word !== undefined && word.length > 0 && words.some((w) => wordOf(w) === word);
}

/** The side command `message` is (a key of `commands`, matched like a cancel word), if any. */
export function commandOf(
  message: InboundMessage,
  commands: Readonly<Record<string, unknown>>,
): string | undefined {
  const word = wordOf(textOf(message));
  if (!word) return undefined;
  return Object.keys(commands).find((key) => wordOf(key) === word);
}

/** A reminder ladder for a silent human: the first nudge `after`, then every `every`, `max` in all. */
export interface NudgeOptions {
  /** Silence before the first nudge, e.g. '1 hour'. */
  after: Duration;
  /** Silence between later nudges. Default: `after`. */
  every?: Duration;
  /** Nudges in all. Default 1. */
  max?: number;
  /** The nudge's text. Default: "Still there? " and the question. */
  text?: string;
}

/** When the nudges of a wait that began at `startMs` are due (workflow ms), in order. */
export function nudgeTimes(startMs: number, nudge: NudgeOptions | undefined): number[] {
  if (!nudge) return [];
  const after = msToNumber(nudge.after);
  const every = nudge.every === undefined ? after : msToNumber(nudge.every);
  const max = nudge.max ?? 1;
  if (!(after > 0) || !(every > 0) || !Number.isInteger(max) || max < 0) {
    throw new RangeError('nudge needs after > 0, every > 0 and a whole max >= 0');
  }
  return Array.from({ length: max }, (_, i) => startMs + after + i * every);
}

/** The nudge's text for `question`. */
export function nudgeText(nudge: NudgeOptions, question: string): string {
  return nudge.text ?? `Still there? ${question}`;
}

/** What a parse function returns for an answer it does not accept: `text` is sent as the re-ask. */
export class Invalid {
  constructor(readonly text: string) {}
}

/** Marks an answer as not accepted; `text` (what is wrong, and the question again) is the re-ask. */
export function invalid(text: string): Invalid {
  return new Invalid(text);
}

/** A zod schema, or anything with zod's `safeParse` shape. */
export interface SchemaLike<T> {
  safeParse(
    input: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } };
}

/** How an answer becomes a value: a schema applied to its text, or a function of text and message. */
export type Parser<T> = SchemaLike<T> | ((text: string, message: InboundMessage) => T | Invalid);

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; reask: string };

const stripDot = (s: string) => s.trim().replace(/[.!]+$/, '');

/**
 * Applies `parser` to `message`. Without a parser the answer is its text. A schema's first issue
 * and the question make the re-ask ("Invalid email. What is your email?"); a function's
 * {@link invalid} text is the re-ask as it is. An answer without text (a photo, a sticker) to a
 * question that wants text is re-asked too.
 */
export function parseAnswer<T>(
  parser: Parser<T> | undefined,
  message: InboundMessage,
  question: string,
): ParseOutcome<T> {
  const text = textOf(message);
  if (typeof parser === 'function') {
    const value = parser(text ?? '', message);
    return value instanceof Invalid ? { ok: false, reask: value.text } : { ok: true, value };
  }
  if (text === undefined) return { ok: false, reask: `Please answer in words. ${question}` };
  if (!parser) return { ok: true, value: text as T };
  const parsed = parser.safeParse(text.trim());
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]?.message ?? 'That is not a valid answer';
  return { ok: false, reask: `${stripDot(issue)}. ${question}` };
}

/** The text shown for `question` in nudges, re-asks and the operator's view of the step. */
export function questionText(question: string | { text?: { body?: string } }): string {
  return typeof question === 'string' ? question : (question.text?.body ?? '(a question)');
}
