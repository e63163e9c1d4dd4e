/**
 * A request to the service (pure): when it may go (the window, Retry-After, the 429 ladder,
 * backoff), what an activity's failure means (not sent, final, ambiguous), and the final refusal
 * that stops the agent until it is resumed.
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, TimeoutFailure } from '@temporalio/common';
import { exponentialBackoffMs, rateLimitBackoffMs, type BackoffSettings } from '../../core/backoff';
import type { SlidingWindow } from '../../core/sliding-window';
import type { PollFailureReport, SendFailureDetails } from '../../activities/types';
import { type SendOutcome } from '../../protocol/conversations';
import {
  ActivityFailureTypes as F,
  NON_RETRYABLE_REQUEST_FAILURES,
  type SendFailureType,
} from '../../protocol/failures';
import type { AgentRefusal } from '../../protocol/agent';

/**
 * When a request may go, and what to do after a failed send attempt. Pure: the outbox and the
 * poll and status loops feed it workflow time and act on its answer, so a unit test can drive
 * every rule (sliding window, Retry-After, the 5/10/20 s ladder after a 429 without a hint,
 * exponential backoff with jitter, the attempt limit) without a server. The backoff itself is
 * core/backoff.ts, the one policy of amsflow.
 */

export type Decision = { action: 'send' } | { action: 'wait'; ms: number };

/**
 * May a request go at `now`? It waits until its own `notBefore` (a Retry-After or a backoff),
 * then until the endpoint's window has a slot, plus `marginMs` for the time between this
 * decision and the request leaving the worker.
 */
export function decide(
  window: SlidingWindow,
  now: number,
  request: { notBefore?: number },
  marginMs: number,
): Decision {
  if (request.notBefore !== undefined && request.notBefore > now) {
    return { action: 'wait', ms: Math.max(1, request.notBefore - now) };
  }
  const delay = window.delay(now);
  return delay <= 0 ? { action: 'send' } : { action: 'wait', ms: delay + marginMs };
}

export interface BackoffTuning {
  rateLimitBackoffMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/**
 * Exponential backoff with jitter between `backoffBaseMs` and `backoffMaxMs` (spec 7): the one
 * policy of core/backoff.ts, in whole milliseconds (a durable timer's unit).
 */
export function backoffMs(attempt: number, tuning: BackoffTuning, random: () => number): number {
  return Math.round(exponentialBackoffMs(attempt, settingsOf(tuning, random)));
}

function settingsOf(tuning: BackoffTuning, random: () => number): BackoffSettings {
  return {
    baseMs: tuning.backoffBaseMs,
    maxMs: tuning.backoffMaxMs,
    rateLimitBaseMs: tuning.rateLimitBackoffMs,
    random,
  };
}

/** The retry state of one request: counts of each kind of failure so far. */
export interface RetryState {
  /** Attempts made, the first included. */
  attempts: number;
  /** 429s answered without Retry-After: the ladder's rung (5, 10, 20 s). */
  rateLimitedWithoutHint: number;
  /** 503s, refused connections and opted-in ambiguous retries: the backoff's exponent. */
  transient: number;
  /** Rejections so far (429, 503, refused connection): the spec's retry budget. */
  rejections: number;
  /** Attempts sent again after an ambiguous outcome (opted in, or proven not accepted). */
  resends: number;
}

export const FRESH_RETRY_STATE: RetryState = {
  attempts: 0,
  rateLimitedWithoutHint: 0,
  transient: 0,
  rejections: 0,
  resends: 0,
};

/**
 * May a request be tried again after this failure? Rejections spend the spec's budget
 * (`maxAttempts - 1` retries: three by default); a resend after an ambiguous outcome (opted in,
 * or proven not accepted, e.g. after a worker died mid-send) has its own budget of the same
 * size, so a worker crash never eats the retries the service's rejections are owed.
 */
export function retryAllowed(state: RetryState, after: 'rejection' | 'resend', maxAttempts: number): boolean {
  return (after === 'rejection' ? state.rejections : state.resends) + 1 < maxAttempts;
}

/** A failure after which nothing was sent and a retry is allowed (429, 503, a refused connection). */
export interface Rejection {
  status?: number;
  retryAfterMs?: number;
}

/**
 * How long to wait before retrying after `rejection`, and the state after it: Retry-After when
 * the service gave one, else 5, 10, 20 s for a 429, else exponential backoff.
 */
export function retryAfterRejection(
  state: RetryState,
  rejection: Rejection,
  tuning: BackoffTuning,
  random: () => number,
): { waitMs: number; state: RetryState } {
  const counted = { ...state, rejections: state.rejections + 1 };
  if (rejection.retryAfterMs !== undefined)
    return { waitMs: Math.max(1, rejection.retryAfterMs), state: counted };
  if (rejection.status === 429) {
    return {
      // 5, 10, 20 s (the spec's ladder), and never longer than backoff_max after that (polls
      // go on being retried; a send has stopped after three retries).
      waitMs: rateLimitBackoffMs(state.rateLimitedWithoutHint, settingsOf(tuning, random)),
      state: { ...counted, rateLimitedWithoutHint: state.rateLimitedWithoutHint + 1 },
    };
  }
  return {
    waitMs: Math.max(1, backoffMs(state.transient, tuning, random)),
    state: { ...counted, transient: state.transient + 1 },
  };
}

/**
 * Reads an activity's failure as the agent workflow sees it: its stable type string and details
 * (an `ApplicationFailure` inside an `ActivityFailure`), then classifies it. The classification
 * is pure, so each rule (what means "not sent", what is final) has a unit test.
 */

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

/**
 * A final refusal: the service refused the agent's token (401, code 190) on a poll or a send, or
 * refused a poll with another 4xx that the spec says not to retry (section 7; 409 and 429 are
 * not final). Retrying cannot help, so the agent stops polling and says why, with the fix,
 * until it is resumed (`amsflow.resume`: `amsflow agent resume <key>`, or a worker that starts
 * with the agent). Meanwhile every send fails at once with `SendUnauthorized` instead of waiting.
 * Pure: each rule has a unit test.
 */

/** The refusal `info` is, or undefined when the failure does not stop the agent. */
export function refusalOf(
  agentKey: string,
  where: 'poll' | 'send',
  info: FailureInfo,
  at: string,
): AgentRefusal | undefined {
  const status = info.details?.status;
  let kind: AgentRefusal['status'];
  if (where === 'poll' && info.type === F.unauthorized) kind = 'unauthorized';
  else if (where === 'poll' && info.type === F.invalidRequest)
    kind = status === 403 ? 'unauthorized' : 'refused';
  // A 403 or a 400 on a send is about that message or recipient: only a refused token stops the agent.
  else if (where === 'send' && info.type === F.sendUnauthorized && info.details?.tokenRefused)
    kind = 'unauthorized';
  else return undefined;
  return {
    status: kind,
    where,
    ...(status === undefined ? {} : { httpStatus: status }),
    at,
    message: shorten(info.message),
    fix: fixOf(agentKey, kind, where, status),
  };
}

/** What an operator does about it, in one sentence. */
export function fixOf(
  agentKey: string,
  kind: AgentRefusal['status'],
  where: 'poll' | 'send',
  status: number | undefined,
): string {
  const code = status === undefined ? '' : ` (${status})`;
  const resume = `restart the worker, or run \`amsflow agent resume ${agentKey}\``;
  if (kind === 'unauthorized') {
    return `the token of agent ${agentKey} was refused${code}: set a valid token and ${resume}`;
  }
  return (
    `the service refused agent ${agentKey}'s ${where}${code}: check its base URL (it ends in the ` +
    `version prefix, e.g. /agent/v1) and its configuration, then ${resume}`
  );
}

/** The outcome of a send asked for while the agent is stopped by `refusal`: nothing was sent. */
export function refusedOutcome(refusal: AgentRefusal, attempts: number): SendOutcome {
  return {
    ok: false,
    type: 'SendUnauthorized',
    message: `Not sent: agent stopped (${refusal.status}): ${refusal.fix}.`,
    attempts,
  };
}

/** The one log line of a refusal: no token (messages are redacted at the client), no stack. */
export function refusalLine(agentKey: string, refusal: AgentRefusal): string {
  return `agent ${agentKey} stopped polling (${refusal.status}): ${refusal.fix}. The service said: ${refusal.message}`;
}

function shorten(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
