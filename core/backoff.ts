/**
 * The one backoff policy of amsflow (spec 7, "Retry behaviour of a client"): the HTTP client's
 * retries, the outbox's send retries, the poll loop's and media's waits. Pure and dependency-free:
 * workflow code uses it too (with the workflow's deterministic `Math.random`).
 */

export interface BackoffSettings {
  /** Lower bound of a backoff, ms. */
  baseMs: number;
  /** Upper bound of a backoff, ms. */
  maxMs: number;
  /** First wait after a 429 without Retry-After, ms; doubles each time (5, 10, 20 s by default). */
  rateLimitBaseMs: number;
  /** Source of jitter in [0, 1); default Math.random. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter for retry number `retry` (0 for the first retry): a uniform draw
 * from [base * 2^retry, base * 2^(retry+1)), clamped to [baseMs, maxMs]. Never below the base (the
 * spec's lower bound), never above the cap, and two clients that failed together drift apart.
 */
export function exponentialBackoffMs(retry: number, settings: BackoffSettings): number {
  const random = settings.random ?? Math.random;
  const floor = settings.baseMs * 2 ** retry;
  const delay = floor * (1 + random());
  return Math.min(settings.maxMs, Math.max(settings.baseMs, delay));
}

/**
 * Wait after the `n`-th (0-based) 429 without Retry-After: rateLimitBaseMs * 2^n (5, 10, 20 s by
 * default), capped at maxMs. No jitter: the spec gives these exact values.
 */
export function rateLimitBackoffMs(n: number, settings: BackoffSettings): number {
  return Math.min(Math.max(settings.maxMs, settings.rateLimitBaseMs), settings.rateLimitBaseMs * 2 ** n);
}
