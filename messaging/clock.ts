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

/** The process clock: `performance.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
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
