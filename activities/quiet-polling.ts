/**
 * Quiet polling: while long polls come back empty, the poll activity polls again by itself
 * instead of returning, so an idle agent costs no workflow task until something arrives (or
 * `forMs` has passed). Its polls keep the agent workflow's pace: the activity is handed the
 * updates window as the workflow recorded it and paces every further poll by the same
 * {@link SlidingWindow} rule, keeping `reserve` polls free; it reports when each empty poll
 * ended, and the workflow records them in its window.
 *
 * The pure part, {@link QuietPolling}, decides; the activity does the HTTP and the waiting.
 */
import { SlidingWindow } from '../core/sliding-window';

/** What the agent workflow hands the poll activity so that it may poll quietly. */
export interface QuietPollingInput {
  /** How long, from the activity's start, it may go on polling while pages are empty. */
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
}

export type QuietDecision = { action: 'return' } | { action: 'poll'; afterMs: number };

/** The pure rule: whether to poll again after an empty page, and after how long. */
export class QuietPolling {
  private readonly window: SlidingWindow;
  private readonly deadline: number;
  /** When each empty poll ended (worker clock), for the workflow's window. */
  readonly emptyPollEnds: number[] = [];

  constructor(
    private readonly input: QuietPollingInput,
    startedAt: number,
    private readonly pollMs: number,
  ) {
    this.window = new SlidingWindow(input.limit, input.windowMs, input.times);
    this.deadline = startedAt + input.forMs;
  }

  /**
   * An empty poll ended at `at`: poll again (after the pacing wait) if that poll would still end
   * before the deadline, else return the empty page to the workflow. Polls followed by another
   * are listed in {@link emptyPollEnds}; the one returned is the workflow's own to record.
   */
  afterEmptyPoll(at: number): QuietDecision {
    this.window.record(at);
    const wait = this.window.delayKeeping(at, this.input.reserve);
    const afterMs = wait > 0 ? wait + this.input.marginMs : 0;
    if (at + afterMs + this.pollMs > this.deadline) return { action: 'return' };
    this.emptyPollEnds.push(at);
    return { action: 'poll', afterMs };
  }
}
