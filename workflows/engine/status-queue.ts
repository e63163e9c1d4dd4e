/**
 * Mark-read and typing requests waiting for the statuses endpoint. Policy (pure, bounded):
 * - mark-read: every message handed off is queued once; a failed mark-read stays at the head
 *   and is retried (after Retry-After or a backoff) until it succeeds, is refused for good
 *   (4xx, unknown agent), or has failed for `giveUpMs`. Past `maxPending` the oldest is
 *   dropped (it stays unread in the buffer; nothing else depends on it) and counted.
 * - typing: at most `maxTyping` distinct messages, newest kept; an indicator that cannot go at
 *   once (budget spent) is dropped, because a late typing indicator is worse than none.
 * Neither ever delays a reply: they have their own windows and their own loop.
 */
export interface MarkReadEntry {
  messageId: string;
  /** Failed attempts so far. */
  failures?: number;
  /** Workflow time of the first failure. */
  failingSince?: number;
  /** Not before this workflow time (after a failure). */
  notBefore?: number;
}

export interface StatusQueueState {
  /**
   * Compact: an entry that has not failed is carried as its bare message id (500 of
   * them are ~7 KB less, which the carried state's bound needs; see carried-state.test.ts).
   */
  markRead: (string | MarkReadEntry)[];
  markReadDropped?: number;
}

export class StatusQueue {
  private readonly markRead: MarkReadEntry[];
  private readonly typing: string[] = [];
  /** Mark-reads given up (too many pending, refused, or failing too long). */
  dropped: number;

  constructor(
    private readonly bounds: { maxPending: number; maxTyping: number; giveUpMs: number },
    carried?: Partial<StatusQueueState>,
  ) {
    this.markRead = (carried?.markRead ?? []).map((e) => (typeof e === 'string' ? { messageId: e } : e));
    this.dropped = carried?.markReadDropped ?? 0;
    this.trim();
  }

  addMarkRead(messageId: string): void {
    this.markRead.push({ messageId });
    this.trim();
  }

  addTyping(messageId: string): void {
    if (this.typing.includes(messageId)) return;
    this.typing.push(messageId);
    while (this.typing.length > this.bounds.maxTyping) this.typing.shift();
  }

  get pendingMarkRead(): number {
    return this.markRead.length;
  }

  get isEmpty(): boolean {
    return this.markRead.length === 0 && this.typing.length === 0;
  }

  /** The next typing indicator to show, taken off the queue. */
  takeTyping(): string | undefined {
    return this.typing.shift();
  }

  /** The mark-read at the head, left on the queue until it is settled. */
  headMarkRead(): MarkReadEntry | undefined {
    return this.markRead[0];
  }

  /** The head mark-read succeeded. */
  markReadDone(): void {
    this.markRead.shift();
  }

  /**
   * The head mark-read failed at `now`. A retryable failure keeps it, not before `now + waitMs`,
   * unless it has been failing for `giveUpMs`; a final one drops it.
   */
  markReadFailed(now: number, retry: { waitMs: number } | 'final'): void {
    const head = this.markRead[0];
    if (!head) return;
    const since = head.failingSince ?? now;
    if (retry === 'final' || now - since >= this.bounds.giveUpMs) {
      this.markRead.shift();
      this.dropped++;
      return;
    }
    this.markRead[0] = {
      ...head,
      failures: (head.failures ?? 0) + 1,
      failingSince: since,
      notBefore: now + retry.waitMs,
    };
  }

  snapshot(): StatusQueueState {
    return {
      markRead: this.markRead.map((e) => (e.failures ? e : e.messageId)),
      markReadDropped: this.dropped,
    };
  }

  private trim(): void {
    while (this.markRead.length > this.bounds.maxPending) {
      this.markRead.shift();
      this.dropped++;
    }
  }
}
