/**
 * What waits for the statuses endpoint (pure): mark-reads and typing indicators with the statuses
 * window's slots, and a vehicle's mark-read report in the status queue's terms.
 */
import type { SlidingWindow } from '../../core/sliding-window';
import type { MarkReadReport } from '../../activities/mark-reads';
import { backoffMs, type BackoffTuning } from './request-policy';

/**
 * What waits for the statuses endpoint: mark-reads and typing indicators, with the statuses
 * window's slots they take. Policy (pure, bounded):
 * - mark-read: every message handed off is queued once (`addMarkRead`). It rides with the next
 *   send attempt (read, then answer: `forSend`), as many as the statuses window has room for at
 *   once, so a reply never waits for a read tick and costs no activity of its own. One that no
 *   send took within `graceMs` of its hand-off (a message with no reply yet) goes with a request
 *   of its own (`forOwn`, the mark-read loop), paced by the window. What a vehicle (a send
 *   attempt, or a mark-read request of its own) did comes back in `rode`:
 *   - done: gone. Refused for good (an id the service does not know): dropped and counted.
 *   - refused with a failure that may pass (429, 503): no mark-read at all before Retry-After or
 *     the backoff's first rung (the endpoint waits); given up after failing for `giveUpMs`.
 *   - of unknown outcome (a dropped connection, a timeout, a 500: it may or may not be marked):
 *     due again at once, with the next vehicle or a request of their own (marking read twice is
 *     harmless), neither a grace nor a pause. Failed before (the last time of unknown outcome),
 *     its request of its own waits `unknownRetryBaseMs`, doubled with each further failure up to
 *     `graceMs` ({@link unknownRetryWaitMs}), so that a connection dropping for a second or two
 *     does not spend the statuses window's budget in a burst and leave the read tick waiting for
 *     a slot long after the network is back (at the spec's 12 a minute, up to a minute); a send
 *     still takes it at once (read, then answer). Given up after failing for `giveUpMs`.
 *   - told nothing (the vehicle failed before it could say, timed out, was cancelled, its worker
 *     died): due again at once, given up after failing for `giveUpMs`.
 *   A typing indicator shown for a message marks it read too (POST /statuses does both), so that
 *   message's own mark-read is not needed any more (`typed`). Past `maxPending` the oldest is
 *   dropped (it stays unread in the buffer; nothing else depends on it) and counted.
 * - typing: at most `maxTyping` distinct messages, newest kept; an indicator that cannot go at
 *   once (budget spent) is dropped, because a late typing indicator is worse than none.
 *
 * The window's slots are taken when the vehicle leaves (so two vehicles at once never overrun it)
 * and moved to when each request was answered (the latest the service may have counted it), or,
 * for a vehicle that told nothing, to when that was learned.
 */

export interface MarkReadEntry {
  messageId: string;
  /** Workflow time of its hand-off; none: due for a request of its own at once (carried, or told nothing). */
  since?: number;
  /** Failed attempts so far. */
  failures?: number;
  /** Workflow time of the first failure. */
  failingSince?: number;
  /** Not before this workflow time (after a failure that may pass: the endpoint asked to wait). */
  notBefore?: number;
  /** No request of its own before this workflow time (after unknown outcomes; a send still takes it). */
  quietUntil?: number;
}

export interface StatusQueueState {
  /**
   * Compact: an entry that has not failed is carried as its bare message id (500 of them are
   * ~7 KB less, which the carried state's bound needs; see runtime.carried-state.test.ts). A carried
   * entry is due at once in the next run: the grace for a reply has passed.
   */
  markRead: (string | MarkReadEntry)[];
  markReadDropped?: number;
}

/** What a vehicle reports of the mark-reads it carried (see activities/mark-reads.ts). */
export interface RideReport {
  done: string[];
  /** Refused for good (a 4xx other than 429): dropped. */
  refused: string[];
  /** Failed with a failure that may pass: due again after `retry.waitMs`. */
  failed: string[];
  /** Of unknown outcome: due again at once. */
  unknown: string[];
  /** When each request made was answered (worker clock): the window's records. */
  times: number[];
  retry?: { waitMs: number };
}

export interface StatusBounds {
  maxPending: number;
  maxTyping: number;
  giveUpMs: number;
  /** How long a mark-read waits for a send to ride with before it goes by a request of its own. */
  graceMs: number;
  /** A mark-read's quiet after its second failure, the last of unknown outcome ({@link unknownRetryWaitMs}). */
  unknownRetryBaseMs: number;
}

/**
 * How long a mark-read that failed `failures` times, the last of unknown outcome, waits before a
 * request of its own: none after the first failure (a single dropped connection), then `baseMs`,
 * doubled each time, never more than `maxMs`.
 */
export function unknownRetryWaitMs(failures: number, baseMs: number, maxMs: number): number {
  if (failures <= 1) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 2, 30));
}

/** The most mark-reads one vehicle takes (the statuses window's room bounds it too). */
const MAX_PER_VEHICLE = 50;

interface Ride {
  entries: MarkReadEntry[];
  /** When the vehicle left, as recorded in the window (one record per entry). */
  at: number;
}

export class StatusQueue {
  private markRead: MarkReadEntry[];
  /** Entries handed to a vehicle now under way, by vehicle (still ours: carried, counted as pending). */
  private readonly riding = new Map<string, Ride>();
  private readonly typing: string[] = [];
  /** Mark-reads given up (too many pending, refused, or failing too long). */
  dropped: number;
  /** After a failure that may pass (a 429's Retry-After): no mark-read at all before this time. */
  private pausedUntil = 0;

  constructor(
    private readonly bounds: StatusBounds,
    private readonly window: SlidingWindow,
    carried?: Partial<StatusQueueState>,
  ) {
    this.markRead = (carried?.markRead ?? []).map((e) => (typeof e === 'string' ? { messageId: e } : e));
    this.dropped = carried?.markReadDropped ?? 0;
    this.trim();
  }

  addMarkRead(messageId: string, now: number): void {
    this.markRead.push({ messageId, since: now });
    this.trim();
  }

  /** A typing indicator was shown for `messageId`: it is read (the same request marks it). */
  typed(messageId: string): void {
    this.markRead = this.markRead.filter((e) => e.messageId !== messageId);
  }

  addTyping(messageId: string): void {
    if (this.typing.includes(messageId)) return;
    this.typing.push(messageId);
    while (this.typing.length > this.bounds.maxTyping) this.typing.shift();
  }

  get pendingMarkRead(): number {
    let riding = 0;
    for (const ride of this.riding.values()) riding += ride.entries.length;
    return this.markRead.length + riding;
  }

  /** Whether a vehicle carries mark-reads now (a send waits for one of their own: read, then answer). */
  get underWay(): boolean {
    return this.riding.size > 0;
  }

  get hasTyping(): boolean {
    return this.typing.length > 0;
  }

  /** The next typing indicator to show, taken off the queue. */
  takeTyping(): string | undefined {
    return this.typing.shift();
  }

  /**
   * The mark-reads that ride with send attempt `vehicle` leaving at `now`: every one due, oldest
   * first, as many as the window has room for now (a reply never waits for a read tick).
   */
  forSend(vehicle: string, now: number): string[] {
    return this.hand(vehicle, now, (e) => this.due(e, now));
  }

  /**
   * When the mark-read loop should next look (a mark-read no send took within the grace, one a
   * vehicle told nothing of, one whose failure's wait is over; no sooner than the window has a
   * slot), or undefined when none waits.
   */
  ownDueAt(now: number): number | undefined {
    if (this.markRead.length === 0) return undefined;
    const first = Math.min(...this.markRead.map((e) => this.ownAt(e)));
    const at = Math.max(first, this.pausedUntil);
    return Math.max(at, now + this.window.delay(now));
  }

  /** The mark-reads a request of their own takes at `now` (see {@link ownDueAt}). */
  forOwn(vehicle: string, now: number): string[] {
    return this.hand(vehicle, now, (e) => this.due(e, now) && this.ownAt(e) <= now);
  }

  /**
   * Vehicle `vehicle` ended at `now`, reporting `report`; none: it told nothing (failed before it
   * could say, timed out, cancelled, its worker died). Books its requests in the window.
   */
  rode(vehicle: string, now: number, report: RideReport | undefined): void {
    const ride = this.riding.get(vehicle);
    if (!ride) return;
    this.riding.delete(vehicle);
    for (let i = 0; i < ride.entries.length; i++) this.window.forget(ride.at);
    if (!report) {
      // Each may have been counted until now; all go again at once (failing since: a vehicle
      // that can never tell, such as a worker with no client for the agent, ends in a give-up).
      for (let i = 0; i < ride.entries.length; i++) this.window.record(now);
      const back = ride.entries.filter((e) => !this.givenUp(e, now));
      this.markRead = [
        ...back.map(({ since: _since, ...e }) => ({ ...e, failingSince: e.failingSince ?? now })),
        ...this.markRead,
      ];
      this.trim();
      return;
    }
    for (const at of report.times) this.window.record(at);
    if (report.retry) this.pausedUntil = Math.max(this.pausedUntil, now + report.retry.waitMs);
    const back: MarkReadEntry[] = [];
    for (const entry of ride.entries) {
      if (report.done.includes(entry.messageId)) continue;
      if (report.refused.includes(entry.messageId)) {
        this.dropped++;
        continue;
      }
      const unknown = report.unknown.includes(entry.messageId);
      if (!unknown && !report.failed.includes(entry.messageId)) {
        // Not tried (the vehicle stopped first): as it was.
        back.push(entry);
        continue;
      }
      if (this.givenUp(entry, now)) continue;
      const { since: _since, notBefore: _notBefore, quietUntil: _quietUntil, ...rest } = entry;
      const failures = (entry.failures ?? 0) + 1;
      const quietMs = unknownRetryWaitMs(failures, this.bounds.unknownRetryBaseMs, this.bounds.graceMs);
      back.push({
        ...rest,
        failures,
        failingSince: entry.failingSince ?? now,
        ...(unknown
          ? quietMs > 0
            ? { quietUntil: now + quietMs }
            : {}
          : { notBefore: now + (report.retry?.waitMs ?? 0) }),
      });
    }
    this.markRead = [...back, ...this.markRead];
    this.trim();
  }

  snapshot(): StatusQueueState {
    const riding = [...this.riding.values()].flatMap((r) => r.entries);
    return {
      markRead: [...riding, ...this.markRead].map(({ since: _since, ...e }) =>
        e.failures ? e : e.messageId,
      ),
      markReadDropped: this.dropped,
    };
  }

  /** Whether `entry`, failing again at `now`, has failed for `giveUpMs`: dropped and counted. */
  private givenUp(entry: MarkReadEntry, now: number): boolean {
    if (now - (entry.failingSince ?? now) < this.bounds.giveUpMs) return false;
    this.dropped++;
    return true;
  }

  private due(entry: MarkReadEntry, now: number): boolean {
    return now >= this.pausedUntil && (entry.notBefore ?? 0) <= now;
  }

  /**
   * When `entry` may go by a request of its own: after the grace for a send, its failure's wait,
   * and its quiet after unknown outcomes.
   */
  private ownAt(entry: MarkReadEntry): number {
    const afterGrace = entry.since === undefined ? 0 : entry.since + this.bounds.graceMs;
    return Math.max(afterGrace, entry.notBefore ?? 0, entry.quietUntil ?? 0);
  }

  /** Hands the entries `pick` takes (oldest first, as many as the window has room for) to `vehicle`. */
  private hand(vehicle: string, now: number, pick: (e: MarkReadEntry) => boolean): string[] {
    const room = Math.min(MAX_PER_VEHICLE, this.window.room(now));
    const taken = this.markRead.filter(pick).slice(0, room);
    if (taken.length === 0) return [];
    this.markRead = this.markRead.filter((e) => !taken.includes(e));
    this.riding.set(vehicle, { entries: taken, at: now });
    for (let i = 0; i < taken.length; i++) this.window.record(now);
    return taken.map((e) => e.messageId);
  }

  private trim(): void {
    while (this.pendingMarkRead > this.bounds.maxPending && this.markRead.length > 0) {
      this.markRead.shift();
      this.dropped++;
    }
  }
}

/**
 * What the agent makes of a vehicle's mark-read report (activities/mark-reads.ts): the status
 * queue's terms, with the wait before the failed ones are tried again (Retry-After when the
 * service sent one, else the first rung of the backoff); those of unknown outcome go again at
 * once. Pure.
 */

export function rideReport(report: MarkReadReport, tuning: BackoffTuning): RideReport {
  const { done, refused, failed, times } = report;
  const unknown = report.unknown ?? [];
  if (failed.length === 0) return { done, refused, failed, unknown, times };
  // The service's Retry-After is honoured even past the backoff's cap (a cap below it would be a
  // request sooner than allowed after a 429); only an absurd one is bounded.
  const waitMs =
    report.retryAfterMs !== undefined
      ? Math.min(report.retryAfterMs, Math.max(tuning.backoffMaxMs, RETRY_AFTER_BOUND_MS))
      : Math.min(
          backoffMs(0, tuning, () => 0.5),
          tuning.backoffMaxMs,
        );
  return { done, refused, failed, unknown, times, retry: { waitMs } };
}

/** The longest Retry-After a mark-read waits (past it, the service's answer is taken as absurd). */
const RETRY_AFTER_BOUND_MS = 300_000;
