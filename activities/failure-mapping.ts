/**
 * How an activity's failure reaches the workflow: `ApplicationFailure`s with stable type names
 * (protocol/failures.ts) and details (status, Retry-After, whether the token was refused), all
 * non-retryable (the workflow decides retries). Final refusals are `BENIGN`: the agent workflow
 * logs them once, so the SDK does not log each at WARN with a stack.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import {
  AmbiguousSendError,
  ApiError,
  AuthError,
  NotAcceptedError,
  RateLimitError,
  RequestAbortedError,
  TransportError,
  UnexpectedResponseError,
  ValidationError,
} from '../messaging/errors';
import type { MarkReadReport } from './mark-reads';
import { ActivityFailureTypes as F, type PollFailureReport, type SendFailureDetails } from './types';

export function failure(
  type: string,
  message: string,
  nonRetryable: boolean,
  details?: unknown,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable,
    details: details === undefined ? [] : [details],
  });
}

/**
 * A final refusal (a bad token, a 4xx): the agent workflow stops and logs it once, so the SDK's
 * per-attempt WARN line (with a stack) is demoted to debug (`BENIGN`).
 */
function refusal(type: string, message: string, details: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: true,
    details: [details],
    category: ApplicationFailureCategory.BENIGN,
  });
}

/**
 * Maps a non-send failure. 429 and 503 mean "not done, try later": the workflow waits out
 * Retry-After (in the details) or its ladder; bad tokens and bad requests stop.
 */
export function requestFailure(err: unknown): unknown {
  if (err instanceof RateLimitError) {
    return failure(F.rateLimited, err.message, true, { status: 429, retryAfterMs: err.retryAfterMs });
  }
  if (err instanceof NotAcceptedError) return failure(F.rateLimited, err.message, true, { status: 503 });
  if (err instanceof AuthError) return refusal(F.unauthorized, err.message, { status: err.status });
  if (err instanceof ValidationError) return failure(F.invalidRequest, err.message, true);
  if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 409) {
    return refusal(F.invalidRequest, err.message, { status: err.status, errorCode: err.errorCode });
  }
  if (err instanceof UnexpectedResponseError) return withoutBody(err);
  return err;
}

/**
 * An unusable answer without its raw body, otherwise as it was (the SDK makes its failure: its
 * class name as the type, retryable). The body may be an update page, holding the human's
 * messages, which neither the SDK's "Activity failed" WARN line nor a failure may carry:
 * `AMSFLOW_LOG_BODIES` is for debug lines only. (The error keeps the body off its enumerable
 * members already; this copy has none to keep.)
 */
function withoutBody(err: UnexpectedResponseError): UnexpectedResponseError {
  const copy = new UnexpectedResponseError(err.message, err.status, '', undefined, err.overLimitBytes);
  if (err.stack) copy.stack = err.stack;
  return copy;
}

/**
 * Classifies one send attempt's failure. Only 429/503 and refused connections mean "not sent".
 * `markRead`: what became of the mark-reads that went before it, for the workflow's books.
 */
export function sendFailure(err: unknown, startedAt: number, markRead?: MarkReadReport): ApplicationFailure {
  const message = err instanceof Error ? err.message : String(err);
  const details: SendFailureDetails = { startedAt, ...(markRead ? { markRead } : {}) };
  if (err instanceof RateLimitError) {
    return failure(F.sendRejected, message, true, {
      ...details,
      status: 429,
      retryAfterMs: err.retryAfterMs,
    });
  }
  if (err instanceof NotAcceptedError)
    return failure(F.sendRejected, message, true, { ...details, status: 503 });
  if (err instanceof TransportError && err.reason === 'connect') {
    return failure(F.sendRejected, message, true, { ...details, status: 0, reason: 'connect' });
  }
  if (err instanceof AuthError) {
    return refusal(F.sendUnauthorized, message, { ...details, status: err.status, tokenRefused: true });
  }
  if (err instanceof ApiError && err.status === 403) {
    return failure(F.sendUnauthorized, message, true, { ...details, status: err.status });
  }
  if (err instanceof ValidationError) return failure(F.sendInvalid, message, true, details);
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
    return failure(F.sendInvalid, message, true, { ...details, status: err.status });
  }
  if (err instanceof AmbiguousSendError) {
    return failure(F.sendAmbiguous, message, true, { ...details, status: err.status, reason: err.reason });
  }
  if (err instanceof RequestAbortedError && !err.mayHaveBeenSent) {
    return failure(F.sendRejected, message, true, { ...details, reason: 'aborted before sending' });
  }
  return failure(F.sendAmbiguous, message, true, { ...details, reason: 'unexpected' });
}

/**
 * A failed poll's failure, carrying what it did as the second detail (`{ quietPolls, readPast,
 * offsetAfter }`; the first stays the failure's own). Same type, message and category,
 * and non-retryable like every request failure (the poll activity has one attempt: the workflow
 * retries). A cancellation carries it as its only detail (Temporal records a cancelled activity's
 * details in its history); a failure with nothing to report stays as it is.
 */
export function withPollReport(err: unknown, report: PollFailureReport): unknown {
  const readPast = report.readPast?.length ? report.readPast : undefined;
  const carried: PollFailureReport = {
    // Even an empty list: "reported, no poll besides the failed one" (none would be taken as a
    // lost worker's silence, and the most it may have made would be booked).
    ...(report.quietPolls ? { quietPolls: report.quietPolls } : {}),
    ...(readPast ? { readPast, readPastAt: report.readPastAt, offsetAfter: report.offsetAfter } : {}),
  };
  if (Object.keys(carried).length === 0) return err;
  if (err instanceof CancelledFailure) return new CancelledFailure(err.message, [carried]);
  const app = err instanceof ApplicationFailure ? err : undefined;
  const error = err instanceof Error ? err : undefined;
  const failure = ApplicationFailure.create({
    // A plain error's type as the SDK would name it (its class).
    type: app ? (app.type ?? undefined) : (error?.constructor.name ?? 'Error'),
    message: error ? error.message : String(err),
    nonRetryable: true,
    details: [app?.details?.[0] ?? {}, carried],
    ...(app?.category ? { category: app.category } : {}),
  });
  if (error?.stack) failure.stack = error.stack;
  return failure;
}
