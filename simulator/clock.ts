/** Options of the simulated clock. */
export interface ClockOptions {
  /** Simulated time runs `speed` times as fast as real time. Default 1. */
  speed?: number;
  /** Source of real time in epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Brings an external `now` up to date before each request is handled (e.g. reads the Temporal
   * test server's skipped time, so that the simulator's windows agree with workflow time).
   * Timers due by the new time then fire.
   */
  sync?: () => Promise<void>;
}

/** Cancels a timer; calling it twice is harmless. */
export type CancelTimer = () => void;

interface SimTimer {
  at: number;
  fn: () => void;
  handle?: NodeJS.Timeout;
  /** Due and about to fire (on the next turn of the event loop): a cancel still stops it. */
  firing?: NodeJS.Immediate;
}

/**
 * Simulated time: `start + (realNow - realStart) * speed + advanced`. Every duration of the
 * simulator (windows, long-poll waits, retention, expiry, receipt delays) is measured on it, so
 * that a test can compress a minute into a few real seconds or jump a month with `advance`.
 *
 * Timers are real `setTimeout`s re-checked against simulated time when they fire, because a
 * jump (`advance`) or an injected `now` can move simulated time independently of real time.
 */
export class SimClock {
  readonly speed: number;
  private readonly realNow: () => number;
  private readonly realStart: number;
  private advancedMs = 0;
  private readonly timers = new Set<SimTimer>();

  private readonly syncSource?: () => Promise<void>;

  constructor(options: ClockOptions = {}) {
    this.syncSource = options.sync;
    const speed = options.speed ?? 1;
    if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`clock.speed must be > 0, got ${speed}`);
    this.speed = speed;
    this.realNow = options.now ?? Date.now;
    this.realStart = this.realNow();
  }

  /** Simulated epoch milliseconds. */
  now(): number {
    return this.realStart + (this.realNow() - this.realStart) * this.speed + this.advancedMs;
  }

  /** Brings an external time source up to date (see {@link ClockOptions.sync}); a no-op without one. */
  async sync(): Promise<void> {
    if (!this.syncSource) return;
    await this.syncSource();
    // Time may have jumped: every timer is measured again and those now due fire.
    for (const timer of [...this.timers]) this.arm(timer);
  }

  /** Real milliseconds that a simulated duration takes. */
  toRealMs(simMs: number): number {
    return simMs / this.speed;
  }

  /** Jumps simulated time forward and fires every timer that has become due. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advanceMs must be >= 0, got ${ms}`);
    this.advancedMs += ms;
    for (const timer of [...this.timers]) this.arm(timer);
  }

  /** Runs `fn` once `simDelayMs` of simulated time has passed. */
  setTimer(simDelayMs: number, fn: () => void): CancelTimer {
    const timer: SimTimer = { at: this.now() + Math.max(0, simDelayMs), fn };
    this.timers.add(timer);
    this.arm(timer);
    return () => this.cancel(timer);
  }

  /** Cancels every pending timer (on shutdown). */
  cancelAll(): void {
    for (const timer of [...this.timers]) this.cancel(timer);
  }

  private cancel(timer: SimTimer): void {
    if (timer.handle) clearTimeout(timer.handle);
    if (timer.firing) clearImmediate(timer.firing);
    this.timers.delete(timer);
  }

  private arm(timer: SimTimer): void {
    if (timer.handle) clearTimeout(timer.handle);
    const remaining = timer.at - this.now();
    if (remaining <= 0) {
      this.timers.delete(timer);
      timer.handle = undefined;
      // Fire asynchronously so that `advance` and `setTimer` never re-enter their caller; until
      // then a cancel (a reset between the timer falling due and firing) still stops it.
      timer.firing = setImmediate(() => {
        timer.firing = undefined;
        timer.fn();
      });
      return;
    }
    // At least a few real ms, so that an injected frozen `now` cannot make this spin.
    const handle = setTimeout(() => this.arm(timer), Math.max(5, Math.ceil(this.toRealMs(remaining))));
    handle.unref();
    timer.handle = handle;
  }
}
