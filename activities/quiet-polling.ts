/**
 * Quiet polling: while long polls come back with nothing the agent workflow needs now (empty, or
 * only receipts of messages no conversation watches), the poll activity polls again by itself
 * instead of returning, so an idle agent, and a reply's receipts, cost no workflow task (the
 * receipts it read past come back with the next result, for the ledger and the counters). Its
 * polls keep the agent workflow's pace: the activity is handed the updates window as the workflow
 * recorded it and paces every further poll by the same {@link SlidingWindow} rules, keeping
 * `reserve` polls free, letting receipts settle into one page when the budget runs low, and
 * keeping the even cadence after a page (see workflows/engine/poll-rules.ts); it reports when
 * each of its polls ended, and the workflow records them in its window.
 *
 * The pure part, {@link QuietPolling}, decides; the activity does the HTTP and the waiting.
 */
import { SlidingWindow } from '../core/sliding-window';

/** What the agent workflow hands the poll activity so that it may poll quietly. */
export interface QuietPollingInput {
  /** How long, from the activity's start, it may go on polling quietly before it returns. */
  forMs: number;
  /** The updates limit and its window (the spec: 15 per 60 000 ms). */
  limit: number;
  windowMs: number;
  /** Polls kept free for the workflow's own next poll. */
  reserve: number;
  /** Added to every wait, as the workflow's pacing adds it. */
  marginMs: number;
  /** The updates window's recorded request times, as the workflow had them. */
  times: number[];
  /**
   * The time among `times` the workflow recorded for this activity's first poll (when planned):
   * moved to when that poll was answered, as the workflow will move it.
   */
  firstAt?: number;
  /**
   * Receipts of pages with no message are read past (not returned at once) unless they are for
   * one of these watched message ids. Absent: every page is returned.
   */
  watched?: string[];
  /** After a page of receipts: wait up to this long, by the budget's share in use (0: never). */
  receiptSettleMs?: number;
  /** A wait shorter than this is not waited (0 waits any). */
  minSettleMs?: number;
}

export type QuietDecision = { action: 'return' } | { action: 'poll'; afterMs: number };

/** What a poll brought, as quiet polling sees it. */
export type QuietPage = 'nothing' | 'receipts';

/** The pure rule: whether to poll again after a poll that brought nothing needed now, and when. */
export class QuietPolling {
  private readonly window: SlidingWindow;
  private readonly deadline: number;
  private readonly watched: Set<string> | undefined;
  /** When each poll followed by another ended (worker clock), for the workflow's window. */
  readonly pollEnds: number[] = [];
  private polls = 0;

  constructor(
    private readonly input: QuietPollingInput,
    startedAt: number,
    private readonly pollMs: number,
  ) {
    this.window = new SlidingWindow(input.limit, input.windowMs, input.times);
    this.deadline = startedAt + input.forMs;
    this.watched = input.watched ? new Set(input.watched) : undefined;
  }

  /** Whether a page with these receipts and no message may be read past. */
  mayReadPast(statusIds: string[]): boolean {
    return this.watched !== undefined && !statusIds.some((id) => this.watched!.has(id));
  }

  /**
   * A poll that brought `page` ended at `at`: poll again (after the pacing wait) if that poll
   * would still end before the deadline, else return to the workflow. Polls followed by another
   * are listed in {@link pollEnds}; the one returned is the workflow's own to record.
   */
  afterPoll(page: QuietPage, at: number): QuietDecision {
    this.answered(at);
    const { marginMs, reserve } = this.input;
    const paced = this.window.delayKeeping(at, reserve);
    const settle = page === 'receipts' ? this.settleMs(at) : 0;
    const wait = Math.max(paced, settle);
    const afterMs = wait > 0 ? wait + marginMs : 0;
    if (at + afterMs + this.pollMs > this.deadline) return { action: 'return' };
    this.pollEnds.push(at);
    return { action: 'poll', afterMs };
  }

  /**
   * The poll now open failed at `at`: the polls to report with the failure, as {@link pollEnds}
   * would have listed them (the failed one too, unless it was the first: the workflow's own).
   */
  failedAt(at: number): number[] {
    const extra = this.polls > 0;
    this.answered(at);
    return extra ? [...this.pollEnds, at] : [...this.pollEnds];
  }

  /**
   * A poll was answered at `at`: it counts from then (the service may have counted it any time
   * until it answered). The first was recorded by the workflow when it planned it: moved, not
   * recorded twice.
   */
  private answered(at: number): void {
    if (this.polls++ > 0) this.window.record(at);
    else if (this.input.firstAt !== undefined) {
      this.window.forget(this.input.firstAt);
      this.window.record(Math.max(at, this.input.firstAt));
    }
  }

  /** After receipts: the settle, grown with the budget in use, and the even cadence. */
  private settleMs(at: number): number {
    const settle = Math.round((this.input.receiptSettleMs ?? 0) * this.window.usedShare(at));
    const cadence = this.window.cadenceDelay(at, 1);
    const wait = Math.max(settle, cadence);
    return wait >= (this.input.minSettleMs ?? 0) ? wait : 0;
  }
}
