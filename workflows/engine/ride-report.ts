/**
 * What the poll loop makes of a poll's mark-read report (activities/mark-reads.ts): the status
 * queue's terms, with the wait before a retry after a failure that may pass (Retry-After when the
 * service sent one, else the first rung of the backoff). Pure.
 */
import type { MarkReadReport } from '../../activities/mark-reads';
import type { RideReport } from './status-queue';
import { backoffMs, type BackoffTuning } from './send-policy';

export function rideReport(
  report: MarkReadReport | undefined,
  tuning: BackoffTuning,
): RideReport | undefined {
  if (!report) return undefined;
  if (report.failure === undefined) return { done: report.done, refused: report.refused };
  const waitMs = Math.min(report.retryAfterMs ?? backoffMs(0, tuning, () => 0.5), tuning.backoffMaxMs);
  return { done: report.done, refused: report.refused, retry: { waitMs } };
}
