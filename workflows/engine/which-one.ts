/**
 * "Which one?": when a bare answer word could answer more than one open question (a "yes" with
 * two approvals pending, or with an approval pending while another conversation waits for the
 * human's next message), the agent lists them and decides nothing. The human answers by quoting a listed question, or
 * by quoting the list with a number: the first bare answer then goes to that wait. A list is
 * remembered under its request id until it is sent, then under its message id. Pure.
 *
 * Bounds: the `WHICH_ONES_KEPT` most recent lists (an older list quoted is an ordinary message),
 * each with its first `CHOICES_KEPT` waits pickable by number (the rest by quoting them).
 */
import type { InboundMessage } from '../../protocol';
import { BoundedMap } from './bounded-map';

/** Lists remembered. */
export const WHICH_ONES_KEPT = 3;
/** Waits of a list that its number picks (a later one is answered by quoting its question). */
export const CHOICES_KEPT = 9;
/** Characters of the held answer kept: it is a bare answer word, padding and all. */
const ANSWER_CHARS = 64;

/** A "which one?" the agent asked: the bare answer it holds and the workflows of the waits it listed, in order. */
export interface WhichOne {
  answer: InboundMessage;
  workflowIds: string[];
}

/** What a message quoting a list asks for. */
export type WhichChoice =
  /** The n-th listed wait (1-based, within the list): it gets the held answer. */
  | { kind: 'pick'; workflowId: string; answer: InboundMessage }
  /** No number of the list: the agent asks again. */
  | { kind: 'again'; list: WhichOne };

/** "Which one?" with the questions a bare answer fits. */
export function whichOneText(labels: string[]): string {
  return [
    'Which one? Reply to this with its number, or quote the question you answer:',
    ...labels.map((l, i) => `${i + 1}. ${l}`),
  ].join('\n');
}

/** The list number in a reply to a list ("2", "#2", "2."), or undefined when it names none. */
export function choiceNumber(text: string | undefined): number | undefined {
  const m = /^\s*#?(\d{1,3})\s*[.)]?\s*$/.exec(text ?? '');
  return m ? Number(m[1]) : undefined;
}

export class WhichOnes {
  private readonly lists: BoundedMap<string, WhichOne>;

  constructor(carried: Iterable<readonly [string, WhichOne]> = []) {
    this.lists = new BoundedMap(WHICH_ONES_KEPT, carried);
  }

  /** The list being sent as request `requestId`. */
  asked(requestId: string, list: WhichOne): void {
    const { from, id, timestamp, text } = list.answer;
    const answer = {
      from,
      id,
      timestamp,
      type: 'text',
      text: { body: (text?.body ?? '').trim().slice(0, ANSWER_CHARS) },
    };
    this.lists.set(requestId, { answer, workflowIds: list.workflowIds.slice(0, CHOICES_KEPT) });
  }

  /** Request `requestId` was sent as message `messageId`: a reply quoting it finds the list. */
  sent(requestId: string, messageId: string): void {
    const list = this.lists.get(requestId);
    if (!list) return;
    this.lists.delete(requestId);
    this.lists.set(messageId, list);
  }

  /** What `message` picks when it quotes a list (text only); undefined when it quotes none. */
  choice(message: InboundMessage): WhichChoice | undefined {
    const quoted = message.context?.id;
    const list = quoted ? this.lists.get(quoted) : undefined;
    if (!list || message.type !== 'text') return undefined;
    const n = choiceNumber(message.text?.body);
    const picked = n === undefined ? undefined : list.workflowIds[n - 1];
    return picked ? { kind: 'pick', workflowId: picked, answer: list.answer } : { kind: 'again', list };
  }

  snapshot(): [string, WhichOne][] {
    return [...this.lists.entries()];
  }
}
