/**
 * What a failed model call becomes: a Temporal failure with a stable type and a short message
 * made of facts only (HTTP status, the provider's error code, the error's class), never the
 * provider's own text, which may quote the prompt, the output or part of the key. The message
 * goes into history and into the worker's logs.
 *
 * - 429, 5xx, 408, 409, a dropped connection, a timeout, an answer that could not be read:
 *   `ModelUnavailable`, retried by Temporal with the model call's backoff; a `Retry-After` (or
 *   `retry-after-ms`) sets the next delay, at most {@link MAX_RETRY_AFTER_MS}.
 * - Any other 4xx (a wrong key, model or request): `ModelRefused`, not retried.
 */
import { ApplicationFailure } from '@temporalio/common';
import { APICallError } from 'ai';
import { MODEL_FAILURE_TYPES } from '../protocol/models';

/** The longest wait a provider's Retry-After may ask for before the next attempt. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** The wait a Retry-After asks for, in ms (seconds, or an HTTP date), capped; undefined when none. */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower['retry-after-ms']);
  let wait: number | undefined = Number.isFinite(ms) && ms >= 0 ? ms : undefined;
  const after = lower['retry-after'];
  if (wait === undefined && after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) wait = seconds * 1000;
    else if (!Number.isNaN(Date.parse(after))) wait = Math.max(0, Date.parse(after) - now);
  }
  return wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS);
}

/** The provider's error code from a JSON error body (`{"error":{"code":"rate_limit_exceeded"}}`), if it is an identifier. */
export function providerErrorCode(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; type?: unknown } } | null;
    const code = parsed?.error?.code ?? parsed?.error?.type;
    return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function named(err: unknown): string {
  const name = err instanceof Error ? err.name : typeof err;
  return /^[A-Za-z0-9_]{1,64}$/.test(name) ? name : 'Error';
}

/** The failure a model call's error becomes (see the module comment). */
export function modelCallFailure(err: unknown): ApplicationFailure {
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const code = providerErrorCode(err.responseBody);
    const what = `${status === undefined ? 'no HTTP answer' : `HTTP ${status}`}${code ? ` (${code})` : ''}`;
    if (err.isRetryable || status === undefined) {
      const next = retryAfterMs(err.responseHeaders);
      return ApplicationFailure.create({
        type: MODEL_FAILURE_TYPES.unavailable,
        message: `the model call failed: ${what}`,
        details: [{ status: status ?? null, code: code ?? null }],
        ...(next === undefined ? {} : { nextRetryDelay: next }),
      });
    }
    return ApplicationFailure.create({
      type: MODEL_FAILURE_TYPES.refused,
      message: `the model refused the call: ${what}`,
      details: [{ status, code: code ?? null }],
      nonRetryable: true,
    });
  }
  return ApplicationFailure.create({
    type: MODEL_FAILURE_TYPES.unavailable,
    message: `the model call failed (${named(err)})`,
    details: [{ status: null, code: null }],
  });
}
