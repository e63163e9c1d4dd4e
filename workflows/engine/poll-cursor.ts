/**
 * The poll loop's position: the offset (from `next_offset`; the same after 204, 409 or a
 * failure), whether the first poll (offset 0, timeout 0, which reveals the creator) is done, the
 * recipient last seen, and the recently dispatched message ids, so a page read again never
 * dispatches a message twice. Pure.
 */
import type { PollOutput } from '../../activities/types';
import type { Contact, InboundMessage } from '../../protocol';
import { BoundedMap } from './bounded-map';

export interface CursorState {
  offset: number;
  firstPollDone: boolean;
  recipient?: string;
  recentInbound: string[];
  lastPollStartedAt: number;
  /** Workflow time before which no poll may start (after a refused or failed poll). */
  retryAt?: number;
}

export class PollCursor {
  offset: number;
  firstPollDone: boolean;
  recipient: string | undefined;
  /**
   * Workflow time at which the last poll that read to the end of the stream started: whatever
   * the service had accepted before then, this agent has seen (a fence for reconciliation).
   */
  lastPollStartedAt: number;
  /** Workflow time before which no poll may start: a 429's Retry-After or a backoff, carried. */
  retryAt: number | undefined;
  private readonly recent: BoundedMap<string, true>;

  constructor(recentKept: number, carried?: Partial<CursorState>, recipient?: string) {
    this.offset = carried?.offset ?? 0;
    this.firstPollDone = carried?.firstPollDone ?? false;
    this.recipient = carried?.recipient ?? recipient;
    this.lastPollStartedAt = carried?.lastPollStartedAt ?? 0;
    this.retryAt = carried?.retryAt;
    this.recent = new BoundedMap(
      recentKept,
      (carried?.recentInbound ?? []).map((id) => [id, true] as const),
    );
  }

  /** The long-poll wait of the next poll: 0 for the first (it answers at once with the creator). */
  timeoutSeconds(pollTimeoutSeconds: number): number {
    return this.firstPollDone ? pollTimeoutSeconds : 0;
  }

  /** Takes the recipient a send's answer showed (the service's own spelling of the number). */
  sawRecipient(recipient: string): void {
    this.recipient = recipient;
  }

  /** Takes the recipient a page shows (its last contact, else its last sender). */
  seePage(page: { contacts: Contact[]; messages: InboundMessage[] }): void {
    const seen = page.contacts.at(-1)?.wa_id ?? page.messages.at(-1)?.from;
    if (seen) this.recipient = seen;
  }

  /** The messages of a page not dispatched before. */
  fresh(messages: InboundMessage[]): InboundMessage[] {
    return messages.filter((m) => !this.recent.has(m.id));
  }

  /** `messageId` has been handed off (recorded in history): never dispatch it again. */
  dispatched(messageId: string): void {
    this.recent.set(messageId, true);
  }

  /** A whole page has been handled: move past it. */
  advance(nextOffset: number): void {
    this.offset = nextOffset;
  }

  /**
   * A poll that started at `startedAt` completed (page, 204 or 409); `readToEnd` when it showed
   * everything the service had by then (empty, or a page shorter than the limit).
   */
  completed(startedAt: number, readToEnd = true): void {
    if (readToEnd) this.lastPollStartedAt = startedAt;
    this.firstPollDone = true;
  }

  snapshot(): CursorState {
    return {
      offset: this.offset,
      firstPollDone: this.firstPollDone,
      recipient: this.recipient,
      recentInbound: [...this.recent.keys()],
      lastPollStartedAt: this.lastPollStartedAt,
      ...(this.retryAt === undefined ? {} : { retryAt: this.retryAt }),
    };
  }
}

/** Whether a poll's answer shows the whole stream as of the poll's start: empty, or a short page. */
export function readToEnd(result: PollOutput, pollLimit: number): boolean {
  if (result.status === 'empty') return true;
  if (result.status !== 'page') return false;
  // A page read again smaller (too large for a result) ends at its own limit; a member left out
  // (no usable id) still took its place in the page.
  const limit = result.reread?.limit ?? pollLimit;
  const skipped = (result.misfits ?? []).filter((m) => m.action === 'skipped' && m.kind !== 'contact').length;
  return result.messages.length + result.statuses.length + skipped < limit;
}
