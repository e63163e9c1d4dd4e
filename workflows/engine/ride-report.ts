/**
 * What the poll loop makes of a poll's mark-read report (activities/mark-reads.ts): the status
 * queue's terms, with the wait before a retry after a failure that may pass (Retry-After when the
 * service sent one, else the first rung of the backoff); and of a poll that told nothing of its
 * mark-reads ({@link unreportedRide}). Pure.
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
  // The service's Retry-After is honoured even past the backoff's cap (a cap below it would be a
  // request sooner than allowed after a 429); only an absurd one is bounded.
  const waitMs =
    report.retryAfterMs !== undefined
      ? Math.min(report.retryAfterMs, Math.max(tuning.backoffMaxMs, RETRY_AFTER_BOUND_MS))
      : Math.min(
          backoffMs(0, tuning, () => 0.5),
          tuning.backoffMaxMs,
        );
  return { done: report.done, refused: report.refused, retry: { waitMs } };
}

/** The longest Retry-After a mark-read waits (past it, the service's answer is taken as absurd). */
const RETRY_AFTER_BOUND_MS = 300_000;

/**
 * A poll that ended without a report of its mark-reads (cancelled, timed out, or failed before
 * it could say): a 429 its riders met is unknown here, so they go back to wait as after a failure
 * with no Retry-After (the first rung of the backoff). One that timed out may still run on a slow
 * worker, its riders with it, until its next heartbeat tells it so: at least `heartbeatTimeoutMs`.
 */
export function unreportedRide(
  timedOut: boolean,
  heartbeatTimeoutMs: number,
  tuning: BackoffTuning,
): RideReport {
  const firstRung = Math.min(
    backoffMs(0, tuning, () => 0.5),
    tuning.backoffMaxMs,
  );
  const waitMs = timedOut ? Math.max(firstRung, heartbeatTimeoutMs) : firstRung;
  return { done: [], refused: [], retry: { waitMs } };
}
