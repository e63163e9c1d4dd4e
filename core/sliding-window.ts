/**
 * A rolling window of request start times, for pacing to the spec's per-endpoint limits. Pure
 * and deterministic: the agent workflow feeds it workflow time.
 */
export class SlidingWindow {
  private readonly times: number[];

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    times: number[] = [],
  ) {
    this.times = [...times].sort((a, b) => a - b);
  }

  /** Milliseconds to wait before a request may start at `now`; 0 when a slot is free. */
  delay(now: number): number {
    this.prune(now);
    if (this.times.length < this.limit) return 0;
    return Math.max(0, this.times[this.times.length - this.limit] + this.windowMs - now);
  }

  /** Milliseconds until a request may start and still leave `reserve` slots free (0 when it may now). */
  delayKeeping(now: number, reserve: number): number {
    this.prune(now);
    const cap = Math.max(1, this.limit - reserve);
    if (this.times.length < cap) return 0;
    return Math.max(0, this.times[this.times.length - cap] + this.windowMs - now);
  }

  /**
   * Milliseconds until a request may start at `now` under an even cadence with a small burst: a
   * leaky bucket holding `burst + 1` requests that drains one per `windowMs / (limit - burst)`
   * (the generic cell rate algorithm over the recorded times). Requests so paced never put more
   * than `limit` in any window, so they never meet the window's hard wait.
   */
  cadenceDelay(now: number, burst: number): number {
    this.prune(now);
    const cadence = this.windowMs / Math.max(1, this.limit - burst);
    let tat = -Infinity;
    for (const t of this.times) tat = Math.max(tat, t) + cadence;
    return Math.max(0, Math.round(tat - burst * cadence - now));
  }

  /** How many requests may start at `now` without a wait. */
  room(now: number): number {
    this.prune(now);
    return Math.max(0, this.limit - this.times.length);
  }

  /** The share of the window's budget in use at `now` (0 to 1). */
  usedShare(now: number): number {
    this.prune(now);
    return Math.min(1, this.times.length / this.limit);
  }

  /** Records a request started at `at`; returns a function that moves it to the time it really started. */
  record(at: number): (actualStart: number) => void {
    this.insert(at);
    return (actualStart: number) => {
      if (actualStart <= at) return;
      const index = this.times.indexOf(at);
      if (index >= 0) this.times.splice(index, 1);
      this.insert(actualStart);
    };
  }

  /** Forgets a request recorded at `at` that did not happen after all. */
  forget(at: number): void {
    const index = this.times.indexOf(at);
    if (index >= 0) this.times.splice(index, 1);
  }

  snapshot(): number[] {
    return [...this.times];
  }

  private insert(at: number): void {
    let i = this.times.length;
    while (i > 0 && this.times[i - 1] > at) i--;
    this.times.splice(i, 0, at);
  }

  private prune(now: number): void {
    while (this.times.length > 0 && this.times[0] <= now - this.windowMs) this.times.shift();
  }
}
