/**
 * The rules of an approval's answer, pure: which words and reactions approve or reject, and
 * when the human's message was written (exactly, from its wire timestamp).
 */
import { answerWord, type InboundMessage } from '../../protocol/conversations';

const YES = ['yes', 'y', 'yep', 'yeah', 'ok', 'okay', 'sure', 'approve', 'approved', '👍', '✅'];
const NO = ['no', 'n', 'nope', 'nah', 'reject', 'rejected', 'deny', 'denied', '👎', '❌'];

/** Every bare word that answers an approval (the agent routes these to a pending approval). */
export const APPROVAL_WORDS: string[] = [...YES, ...NO];

/** 'approved' or 'rejected' for a yes/no answer (text or reaction), undefined for anything else. */
export function decisionOf(message: InboundMessage): 'approved' | 'rejected' | undefined {
  const raw =
    message.type === 'reaction'
      ? message.reaction?.emoji
      : message.type === 'text'
        ? message.text?.body
        : undefined;
  if (raw === undefined) return undefined;
  const word = answerWord(raw).replace(/[.!]+$/, '');
  if (YES.includes(word)) return 'approved';
  if (NO.includes(word)) return 'rejected';
  return undefined;
}

/**
 * Epoch ms of a message's wire timestamp (epoch seconds as a decimal string, e.g.
 * "1790000000.123"), read digit by digit so nothing is rounded by floating point; undefined if
 * it is not one.
 */
export function messageTime(message: InboundMessage): number | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(String(message.timestamp ?? '').trim());
  if (!match) return undefined;
  const millis = (match[2] ?? '').padEnd(3, '0').slice(0, 3);
  return Number(match[1]) * 1000 + Number(millis);
}

/**
 * When the human answered, to the millisecond: the wire timestamp when it has a fraction; when
 * it is whole seconds (the wire's usual `<epoch s>`), the moment the answer reached the workflow,
 * kept inside that second (`receivedAt`, workflow time), so that nothing is rounded down to the
 * second. Undefined without a readable timestamp.
 */
export function answerTime(message: InboundMessage, receivedAt: number): number | undefined {
  const wire = messageTime(message);
  if (wire === undefined) return undefined;
  if (String(message.timestamp).includes('.')) return wire;
  return Math.min(Math.max(receivedAt, wire), wire + 999);
}

/** An instant as the human reads it in an approval's messages: `2026-11-23 14:03:12 UTC`. */
export function formatInstant(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
