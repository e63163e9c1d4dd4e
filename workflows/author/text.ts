/**
 * Texts of messages and the fixed texts amsflow says: pure, usable in workflow code and outside.
 */
import type { InboundMessage } from '../../protocol/conversations';

/** The text of a text message, else `undefined`. */
export function textOf(message: InboundMessage): string | undefined {
  return message.type === 'text' ? message.text?.body : undefined;
}

/** True for a text message, optionally one whose text matches `pattern`. */
export function isText(message: InboundMessage, pattern?: RegExp): boolean {
  const text = textOf(message);
  return text !== undefined && (pattern === undefined || pattern.test(text));
}

/** What a late answer to a timed-out question gets, quoting it, unless its conversation handles it. */
export const EXPIRED_QUESTION_TEXT = 'That question has expired.';
