/**
 * Time source of the pacing and retry waits. Injectable so that unit tests can drive time by hand.
 */
import { performance } from 'node:perf_hooks';

/** A monotonic clock with cancellable timers. */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences matter). */
  now(): number;
  /** Calls `fn` after `ms` milliseconds; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** Longest delay setTimeout takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The process clock: `performance.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    // setTimeout fires at once for delays over 2^31-1 ms (about 24.8 days): wait in steps.
    let handle: NodeJS.Timeout;
    const wait = (left: number): void => {
      const step = Math.min(Math.max(0, left), MAX_TIMER_MS);
      handle = setTimeout(() => (left > MAX_TIMER_MS ? wait(left - MAX_TIMER_MS) : fn()), step);
    };
    wait(ms);
    return () => clearTimeout(handle);
  },
};

/**
 * Resolves after `ms`, or rejects with `onAbort(signal.reason)` as soon as `signal` aborts.
 * A wait of 0 or less still yields to the event loop once.
 */
export function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  clock: Clock = systemClock,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
