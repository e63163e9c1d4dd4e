/**
 * Reading inbound messages: pure helpers, usable in workflow code and outside it.
 */
import type { InboundMessage } from './types';

/** The text of a text message, else `undefined`. */
export function textOf(message: InboundMessage): string | undefined {
  return message.type === 'text' ? message.text?.body : undefined;
}

/** True for a text message, optionally one whose text matches `pattern`. */
export function isText(message: InboundMessage, pattern?: RegExp): boolean {
  const text = textOf(message);
  return text !== undefined && (pattern === undefined || pattern.test(text));
}
