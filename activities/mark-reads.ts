/**
 * Mark-reads as the activities make them: the agent workflow hands a send attempt (read, then
 * answer) or a mark-read request of its own the messages to mark read, having taken their slots
 * in its statuses window, so they all go at once (concurrently: one round trip before a reply,
 * however many ride with it). The report says which were marked, which the service refused for
 * good, which failed with a failure that may pass (with Retry-After when the service sent one),
 * and when each request was answered, so that the workflow books them in its window.
 */
import { AuthError, NotAcceptedError, RateLimitError, ValidationError, ApiError } from '../messaging/errors';

/** What became of the mark-reads a vehicle carried. */
export interface MarkReadReport {
  /** Marked read. */
  done: string[];
  /** Refused for good (a 4xx other than 429): dropped, they stay unread in the buffer. */
  refused: string[];
  /** Failed with a failure that may pass (429, 503, a dropped connection, a timeout): tried again. */
  failed: string[];
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
 * service does not know), or to be tried again (after Retry-After). A refused token is not the
 * message's fault: the agent stops on it (its polls say so) and the mark-read waits for the fix.
 */
function classify(err: unknown): { final: boolean; retryAfterMs?: number } {
  if (err instanceof RateLimitError) return { final: false, retryAfterMs: err.retryAfterMs };
  if (err instanceof NotAcceptedError || err instanceof AuthError) return { final: false };
  if (err instanceof ValidationError) return { final: true };
  if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 409)
    return { final: true };
  return { final: false };
}

/**
 * Marks `ids` read, all at once; each request is bounded by `signal` (an aborted one counts as
 * failed: it may have been counted). Never throws: every id ends in one of the report's lists.
 */
export async function markReads(
  ids: string[],
  markRead: (messageId: string, signal: AbortSignal) => Promise<unknown>,
  signal: AbortSignal,
): Promise<MarkReadReport> {
  const report: MarkReadReport = { done: [], refused: [], failed: [], times: [] };
  await Promise.all(
    ids.map(async (id) => {
      try {
        await markRead(id, signal);
        report.done.push(id);
      } catch (err) {
        const how = classify(err);
        if (how.final) report.refused.push(id);
        else {
          report.failed.push(id);
          if (err instanceof RateLimitError || err instanceof NotAcceptedError) {
            const status = err instanceof RateLimitError ? '429' : '503';
            report.rejected = { ...report.rejected, [status]: (report.rejected?.[status] ?? 0) + 1 };
          }
          report.failure ??= err instanceof Error ? err.message : String(err);
          if (how.retryAfterMs !== undefined)
            report.retryAfterMs = Math.max(report.retryAfterMs ?? 0, how.retryAfterMs);
        }
      } finally {
        report.times.push(Date.now());
      }
    }),
  );
  return report;
}
