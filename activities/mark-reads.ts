/**
 * Mark-reads riding with the poll activity: the agent workflow hands each poll the messages it
 * has handed off and not yet marked read; the activity marks them while it polls, paced by the
 * statuses window as the workflow recorded it (the same sliding-window rule), and reports which
 * were marked, which the service refused for good, and when each request was answered, so that the
 * workflow records them in its window. A mark-read costs the agent no activity and no workflow
 * task of its own. A failure that may pass (429, 503, a dropped connection) stops the riding for
 * this poll: the rest waits for the next one (after Retry-After, when the service sent one).
 *
 * The pacing decision is pure ({@link MarkReadPlan}); {@link rideMarkReads} does the requests.
 */
import { SlidingWindow } from '../core/sliding-window';
import { AuthError, NotAcceptedError, RateLimitError, ValidationError, ApiError } from '../messaging/errors';

/** What the workflow hands the poll activity to mark read. */
export interface MarkReadInput {
  /** Message ids, oldest first. */
  ids: string[];
  /** The statuses limit and its window (the spec: 12 per 60 000 ms). */
  limit: number;
  windowMs: number;
  /** Added to every pacing wait, as the workflow's pacing adds it. */
  marginMs: number;
  /** The statuses window's recorded request times, as the workflow had them. */
  times: number[];
}

/** What became of them. */
export interface MarkReadReport {
  /** Marked read. */
  done: string[];
  /** Refused for good (a 4xx other than 429): dropped, they stay unread in the buffer. */
  refused: string[];
  /**
   * When each request was answered (worker clock), for the workflow's window: the latest time the
   * service may have counted it.
   */
  times: number[];
  /** A failure that may pass stopped the riding (the rest waits for the next poll). */
  failure?: string;
  /** With `failure`: the service's Retry-After, when it sent one. */
  retryAfterMs?: number;
}

/** The pure pacing rule: how long before the next mark-read may go. */
export class MarkReadPlan {
  private readonly window: SlidingWindow;

  constructor(private readonly input: MarkReadInput) {
    this.window = new SlidingWindow(input.limit, input.windowMs, input.times);
  }

  /** Milliseconds to wait at `now` before the next request (0: now). */
  waitMs(now: number): number {
    const wait = this.window.delay(now);
    return wait > 0 ? wait + this.input.marginMs : 0;
  }

  /**
   * A request went out at `at`; returns what to call when its answer came back. The window keeps
   * it from then: the service counts it when it takes it in, any time until it answers (a slow
   * front, a queue), so the answer is the only time the window can be sure of.
   */
  record(at: number): (answeredAt: number) => void {
    return this.window.record(at);
  }
}

/** How a failed mark-read is taken: refused for good, or a stop for this poll. */
function classify(err: unknown): { final: boolean; retryAfterMs?: number } {
  if (err instanceof RateLimitError) return { final: false, retryAfterMs: err.retryAfterMs };
  if (err instanceof NotAcceptedError) return { final: false };
  if (err instanceof AuthError || err instanceof ValidationError) return { final: true };
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) return { final: true };
  return { final: false };
}

/**
 * Marks `input.ids` read one after another, paced, until all are done, a failure that may pass
 * stops it, or `stop` aborts (the poll is over) and the next one would have to wait for its slot:
 * what is left waits for the next poll. Once `halt` aborts (the poll failed, was cancelled or
 * outlived: the workflow hands these ids to another poll, whose requests this one cannot see),
 * nothing more goes, not even what could go at once.
 */
export async function rideMarkReads(
  input: MarkReadInput,
  markRead: (messageId: string) => Promise<unknown>,
  sleep: (ms: number, stop: AbortSignal) => Promise<void>,
  stop: AbortSignal,
  halt?: AbortSignal,
): Promise<MarkReadReport> {
  const plan = new MarkReadPlan(input);
  const report: MarkReadReport = { done: [], refused: [], times: [] };
  for (const id of input.ids) {
    if (halt?.aborted) break;
    const wait = plan.waitMs(Date.now());
    // Once the poll is over (`stop`), what may go at once still goes; what would wait, waits for
    // the next poll.
    if (wait > 0) {
      if (stop.aborted) break;
      await sleep(wait, stop).catch(() => undefined);
      if (stop.aborted) break;
    }
    const answered = plan.record(Date.now());
    const counted = () => {
      const at = Date.now();
      answered(at);
      report.times.push(at);
    };
    try {
      await markRead(id);
      counted();
      report.done.push(id);
    } catch (err) {
      counted();
      const how = classify(err);
      if (how.final) {
        report.refused.push(id);
        continue;
      }
      report.failure = err instanceof Error ? err.message : String(err);
      if (how.retryAfterMs !== undefined) report.retryAfterMs = how.retryAfterMs;
      break;
    }
  }
  return report;
}
