/**
 * Reads an activity's failure as the agent workflow sees it: its stable type string and details
 * (an `ApplicationFailure` inside an `ActivityFailure`), then classifies it. The classification
 * is pure, so each rule (what means "not sent", what is final) has a unit test.
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, TimeoutFailure } from '@temporalio/common';
import type { PollFailureReport, SendFailureDetails } from '../../activities/types';
import { ActivityFailureTypes as F, NON_RETRYABLE_REQUEST_FAILURES } from '../../protocol/failures';
import type { SendFailureType } from '../../protocol/failures';
import type { Rejection } from './send-policy';

export interface FailureInfo {
  type?: string;
  message: string;
  details?: SendFailureDetails;
  /** The activity timed out (a worker lost mid-request, most likely). */
  timedOut: boolean;
}

export function failureInfo(err: unknown): FailureInfo {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const app = cause instanceof ApplicationFailure ? cause : undefined;
  return {
    type: app ? (app.type ?? undefined) : (cause as Error | undefined)?.name,
    message: cause instanceof Error ? cause.message : String(cause),
    details: app?.details?.[0] as SendFailureDetails | undefined,
    timedOut: cause instanceof TimeoutFailure,
  };
}

export type SendVerdict =
  | { kind: 'final'; type: SendFailureType }
  | { kind: 'rejected'; rejection: Rejection }
  | { kind: 'ambiguous' };

/**
 * What a failed send attempt means. Only a 429, a 503 or a refused connection prove nothing was
 * sent; a refusal of the message or the token is final; a worker with no client for the agent
 * never made a request. Anything else (500, dropped connection, read timeout, activity timeout,
 * an unexpected error) may have sent the message.
 */
export function sendVerdict(info: FailureInfo): SendVerdict {
  switch (info.type) {
    case F.sendInvalid:
      return { kind: 'final', type: 'SendInvalid' };
    case F.sendUnauthorized:
    case F.unauthorized:
    case F.unknownAgent:
      return { kind: 'final', type: 'SendUnauthorized' };
    case F.sendRejected:
      return {
        kind: 'rejected',
        rejection: { status: info.details?.status, retryAfterMs: info.details?.retryAfterMs },
      };
    default:
      return { kind: 'ambiguous' };
  }
}

export type RequestVerdict =
  { kind: 'final' } | { kind: 'rejected'; rejection: Rejection } | { kind: 'transient' };

/** What a failed poll or status request means: refused for good, rate-limited, or transient. */
export function requestVerdict(info: FailureInfo): RequestVerdict {
  if (info.type !== undefined && NON_RETRYABLE_REQUEST_FAILURES.includes(info.type)) return { kind: 'final' };
  if (info.type === F.rateLimited) {
    return {
      kind: 'rejected',
      rejection: { status: info.details?.status ?? 429, retryAfterMs: info.details?.retryAfterMs },
    };
  }
  return { kind: 'transient' };
}

/**
 * A poll ended by its worker's graceful shutdown (the SDK cancels running activities with
 * `WORKER_SHUTDOWN`): nothing went wrong, the next worker polls again.
 */
export function isWorkerShutdown(info: FailureInfo): boolean {
  return info.type === 'WorkerShutdown' || /WORKER_SHUTDOWN/.test(info.message);
}

/**
 * A poll given up by a worker on its machine because the process running it ended
 * (worker/ended-polls.ts), after the close grace: nothing of it is open at the service.
 */
export function isWorkerEnded(info: FailureInfo): boolean {
  return info.type === F.pollWorkerEnded;
}

/**
 * What a failed or cancelled poll did before it ended (its mark-reads, its quiet polls, the
 * receipts it read past and the offset after them), carried as its failure's second detail or its
 * cancellation's first (activities/failure-mapping.ts `withPollReport`); empty when it carries
 * nothing (a lost worker, a run recorded before cancellations carried it).
 */
export function pollReportOf(err: unknown): PollFailureReport {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  if (cause instanceof CancelledFailure) return (cause.details?.[0] as PollFailureReport | undefined) ?? {};
  if (!(cause instanceof ApplicationFailure)) return {};
  return (cause.details?.[1] as PollFailureReport | undefined) ?? {};
}
