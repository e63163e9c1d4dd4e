/**
 * When a request may go, and what to do after a failed send attempt. Pure: the outbox and the
 * poll and status loops feed it workflow time and act on its answer, so a unit test can drive
 * every rule (sliding window, Retry-After, the 5/10/20 s ladder after a 429 without a hint,
 * exponential backoff with jitter, the attempt limit) without a server. The backoff itself is
 * core/backoff.ts, the one policy of amsflow.
 */
import { exponentialBackoffMs, rateLimitBackoffMs, type BackoffSettings } from '../../core/backoff';
import type { SlidingWindow } from '../../core/sliding-window';

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
