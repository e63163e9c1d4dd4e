/**
 * Rolling-window pacing of one endpoint (spec 8, "Client pacing rules").
 *
 * At most `limit` calls per `windowMs`. When the window is full, the next caller waits exactly until
 * the oldest recorded call ages out, so a burst is paced, not rejected. Waiters are served in call
 * order, which keeps concurrent callers fair and the count exact.
 *
 * A call is recorded when it finishes (its answer or its failure arrived), not when it starts,
 * and it holds a slot while in flight. The service counts a request when it arrives, which is
 * always between the two; recording the later moment means the client's window can never empty
 * before the service's does, so a paced burst never meets a 429. The price is one round trip:
 * the 13th call of a burst leaves `windowMs` after the first call's answer arrived.
 */
import { SlidingWindow } from '../core/sliding-window';
import { type Clock, systemClock } from './clock';

export interface RateLimiterOptions {
  /** Calls allowed per window. */
  limit: number;
  /** Window length in ms. */
  windowMs: number;
  /** Time source; default the process clock. */
  clock?: Clock;
}

interface Waiter {
  grant: () => void;
}

/** Paces one endpoint of one client instance. */
export class RollingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly clock: Clock;
  /** Finish times of recent calls (the agent workflow's sliding window, core/sliding-window.ts). */
  private readonly finished: SlidingWindow;
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];
  private cancelTimer: (() => void) | undefined;

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${String(options.limit)}`);
    }
    if (!Number.isFinite(options.windowMs) || options.windowMs < 0) {
      throw new RangeError(
        `rate window must be a non-negative number of ms, got ${String(options.windowMs)}`,
      );
    }
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.clock = options.clock ?? systemClock;
    this.finished = new SlidingWindow(this.limit, this.windowMs);
  }

  /** Calls counted in the current window, including those in flight. */
  get used(): number {
    return this.limit - this.finished.room(this.clock.now()) + this.inFlight;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Runs `fn` once a slot is free. The slot is recorded when `fn` settles. Rejects with
   * `signal.reason` if `signal` aborts while waiting (then nothing is recorded).
   */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.inFlight -= 1;
      this.finished.record(this.clock.now());
      this.pump();
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.waiters.length === 0 && this.hasRoom()) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason as Error);
        this.pump();
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.inFlight += 1;
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  private hasRoom(): boolean {
    // A call finished at t counts while now < t + windowMs.
    return this.finished.room(this.clock.now()) > this.inFlight;
  }

  private pump(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    while (this.waiters.length > 0 && this.hasRoom()) this.waiters.shift()!.grant();
    const now = this.clock.now();
    // Every slot in flight: the next completion pumps instead.
    if (this.waiters.length === 0 || this.inFlight >= this.limit) return;
    // Full: wake exactly when enough recorded calls aged out for one more. Timers may fire a
    // little early; pump re-checks.
    const wait = Math.max(1, this.finished.delayKeeping(now, this.inFlight));
    this.cancelTimer = this.clock.setTimer(() => {
      this.cancelTimer = undefined;
      this.pump();
    }, wait);
  }
}
