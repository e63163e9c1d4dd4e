/**
 * Mark-reads as the activities make them: the agent workflow hands a send attempt (read, then
 * answer) or a mark-read request of its own the messages to mark read, having taken their slots
 * in its statuses window. They go one at a time, oldest first, and stop at the first that failed
 * with a failure that may pass or of unknown outcome: after a 429 the service gets nothing more
 * from this vehicle, not even a sibling already on its way (sent at once, a sibling could reach
 * the service after the 429 was answered, which the service cannot tell from a retry sooner than
 * allowed), and a connection that dropped is not tried again by each of them in turn. Those not
 * tried are in none of the report's lists: the workflow keeps them as they were, for the next
 * vehicle. A reply waits one round trip per message it marks read (usually one). The report says
 * which were marked, which the service refused for good, which failed with a failure that may pass
 * (with Retry-After when the service sent one), which may or may not have been marked (no answer,
 * or one that says nothing), and when each request was answered, so that the workflow books them
 * in its window.
 */
import { AuthError, NotAcceptedError, RateLimitError, ValidationError, ApiError } from '../messaging/errors';

/** What became of the mark-reads a vehicle carried. */
export interface MarkReadReport {
  /** Marked read. */
  done: string[];
  /** Refused for good (a 4xx other than 429): dropped, they stay unread in the buffer. */
  refused: string[];
  /** Refused with a failure that may pass (429, 503, 401, 409): tried again after Retry-After or the backoff. */
  failed: string[];
  /**
   * Outcome unknown (a dropped connection, a timeout, a 500, an answer that does not parse): it may
   * or may not be marked; tried again at once (marking read twice is harmless). Absent: none.
   */
  unknown?: string[];
  /**
   * When each request was answered (worker clock), for the workflow's window: the latest time the
   * service may have counted it.
   */
  times: number[];
  /** With `failed`: the first such failure's message. */
  failure?: string;
  /** With `failed`: the longest Retry-After the service sent. */
  retryAfterMs?: number;
  /** Of `failed`, how many the service refused with 429 and with 503 (for the metrics). */
  rejected?: Partial<Record<'429' | '503', number>>;
}

/**
 * How a failed mark-read is taken: refused for good (the request itself is wrong: an id the
 * service does not know); refused with a failure that may pass, tried again after Retry-After or
 * the backoff (429, 503; a refused token is not the message's fault: the agent stops on it, its
 * polls say so, and the mark-read waits for the fix); or of unknown outcome, tried again at once.
 */
function classify(err: unknown): { kind: 'refused' | 'failed' | 'unknown'; retryAfterMs?: number } {
  if (err instanceof RateLimitError) return { kind: 'failed', retryAfterMs: err.retryAfterMs };
  if (err instanceof NotAcceptedError || err instanceof AuthError) return { kind: 'failed' };
  if (err instanceof ValidationError) return { kind: 'refused' };
  if (err instanceof ApiError && err.status === 409) return { kind: 'failed' };
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) return { kind: 'refused' };
  return { kind: 'unknown' };
}

/**
 * Marks `ids` read, one at a time in their order, until one fails with a failure that may pass or
 * of unknown outcome, or `signal` ends (a request it aborted counts as of unknown outcome: it may
 * have been counted). Never throws: every id tried ends in one of the report's lists; the rest,
 * not tried, in none.
 */
export async function markReads(
  ids: string[],
  markRead: (messageId: string, signal: AbortSignal) => Promise<unknown>,
  signal: AbortSignal,
): Promise<MarkReadReport> {
  const report: MarkReadReport = { done: [], refused: [], failed: [], times: [] };
  for (const id of ids) {
    if (signal.aborted) break;
    try {
      await markRead(id, signal);
      report.done.push(id);
      continue;
    } catch (err) {
      const how = classify(err);
      const failure = err instanceof Error ? err.message : String(err);
      if (how.kind === 'refused') {
        report.refused.push(id);
        continue;
      }
      if (how.kind === 'unknown') (report.unknown ??= []).push(id);
      else {
        report.failed.push(id);
        if (err instanceof RateLimitError || err instanceof NotAcceptedError) {
          report.rejected = { [err instanceof RateLimitError ? '429' : '503']: 1 };
        }
        if (how.retryAfterMs !== undefined) report.retryAfterMs = how.retryAfterMs;
      }
      report.failure = failure;
      break;
    } finally {
      report.times.push(Date.now());
    }
  }
  return report;
}
