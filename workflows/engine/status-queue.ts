/**
 * Mark-read and typing requests waiting for the statuses endpoint. Policy (pure, bounded):
 * - mark-read: every message handed off is queued once and rides with the next poll activity
 *   (activities/mark-reads.ts), which marks it read paced by the statuses window. A poll hands
 *   back what it did not get to (the page came first, or a failure that may pass stopped it:
 *   those are retried after Retry-After or a backoff; so are those of a poll that told nothing
 *   of them, see ride-report.ts), drops what the service refused for good,
 *   and an entry failing for `giveUpMs` is given up. Past `maxPending` the oldest is dropped (it
 *   stays unread in the buffer; nothing else depends on it) and counted.
 * - typing: at most `maxTyping` distinct messages, newest kept; an indicator that cannot go at
 *   once (budget spent) is dropped, because a late typing indicator is worse than none.
 * Neither ever delays a reply: they have their own windows, and typing its own loop.
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

/** What a poll reports of the mark-reads it rode with (see activities/mark-reads.ts). */
export interface RideReport {
  done: string[];
  refused: string[];
  /** A failure that may pass stopped the riding: how long to wait before the next try. */
  retry?: { waitMs: number };
}

export class StatusQueue {
  private markRead: MarkReadEntry[];
  /** Entries handed to the poll now open (still ours: carried, handed back when it ends). */
  private riding: MarkReadEntry[] = [];
  private readonly typing: string[] = [];
  /** Mark-reads given up (too many pending, refused, or failing too long). */
  dropped: number;
  /** After a failure that may pass (a 429's Retry-After): no mark-read at all before this time. */
  private pausedUntil = 0;

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
    return this.markRead.length + this.riding.length;
  }

  get hasTyping(): boolean {
    return this.typing.length > 0;
  }

  /** The next typing indicator to show, taken off the queue. */
  takeTyping(): string | undefined {
    return this.typing.shift();
  }

  /** Whether a mark-read is due at `now` (none waits out a failure). */
  dueNow(now: number): boolean {
    return now >= this.pausedUntil && this.markRead.some((e) => (e.notBefore ?? 0) <= now);
  }

  /**
   * When the first mark-read not handed to a poll may go (its failure's wait, or at once when a
   * poll could not take them all); undefined when none waits. A quiet poll returns by then.
   */
  waitingDueAt(): number | undefined {
    if (this.markRead.length === 0) return undefined;
    return Math.max(this.pausedUntil, Math.min(...this.markRead.map((e) => e.notBefore ?? 0)));
  }

  /** Hands up to `max` mark-reads due at `now` to the next poll (oldest first). */
  ride(now: number, max: number): string[] {
    // The endpoint waits out a failure as a whole: a mark-read queued since goes no sooner.
    if (now < this.pausedUntil) {
      this.riding = [];
      return [];
    }
    const due = this.markRead.filter((e) => (e.notBefore ?? 0) <= now).slice(0, max);
    this.markRead = this.markRead.filter((e) => !due.includes(e));
    this.riding = due;
    return due.map((e) => e.messageId);
  }

  /** The poll that rode with them ended at `now`, reporting `report` (none: it failed or was cancelled). */
  rode(now: number, report: RideReport | undefined): void {
    if (report?.retry) this.pausedUntil = Math.max(this.pausedUntil, now + report.retry.waitMs);
    const back: MarkReadEntry[] = [];
    for (const entry of this.riding) {
      if (report?.done.includes(entry.messageId)) continue;
      if (report?.refused.includes(entry.messageId)) {
        this.dropped++;
        continue;
      }
      if (!report?.retry) {
        back.push(entry);
        continue;
      }
      // A failure that may pass: retried after the wait, unless it has been failing for `giveUpMs`.
      const since = entry.failingSince ?? now;
      if (now - since >= this.bounds.giveUpMs) {
        this.dropped++;
        continue;
      }
      const failures = (entry.failures ?? 0) + 1;
      back.push({ ...entry, failures, failingSince: since, notBefore: now + report.retry.waitMs });
    }
    this.riding = [];
    this.markRead = [...back, ...this.markRead];
    this.trim();
  }

  snapshot(): StatusQueueState {
    return {
      markRead: [...this.riding, ...this.markRead].map((e) => (e.failures ? e : e.messageId)),
      markReadDropped: this.dropped,
    };
  }

  private trim(): void {
    while (this.markRead.length + this.riding.length > this.bounds.maxPending && this.markRead.length > 0) {
      this.markRead.shift();
      this.dropped++;
    }
  }
}
