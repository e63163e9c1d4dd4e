/**
 * What the agent makes of a vehicle's mark-read report (activities/mark-reads.ts): the status
 * queue's terms, with the wait before the failed ones are tried again (Retry-After when the
 * service sent one, else the first rung of the backoff); those of unknown outcome go again at
 * once. Pure.
 */
import type { MarkReadReport } from '../../activities/mark-reads';
import type { RideReport } from './status-queue';
import { backoffMs, type BackoffTuning } from './send-policy';

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
