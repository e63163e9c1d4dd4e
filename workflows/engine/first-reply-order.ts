/**
 * First replies leave in arrival order: the handler of message n sends its first reply before
 * the handler of message n+1 does. A handler holds its turn from its start until it sends,
 * releases (waits for the human, sleeps, finishes), or `graceMs` pass, so one slow handler
 * delays the others by at most the grace. Pure; the outbox consults it before each send.
 */
export class FirstReplyOrder {
  /** Handlers that have not sent their first reply yet: arrival number -> start time. */
  private readonly slots: Map<number, number>;

  constructor(
    private readonly graceMs: number,
    carried: Iterable<readonly [number, number]> = [],
  ) {
    this.slots = new Map(carried);
  }

  /** The handler of arrival `seq` started at `now` and holds its turn. */
  hold(seq: number, now: number): void {
    this.slots.set(seq, now);
  }

  /** The handler of arrival `seq` sent its first reply or has none to send now. */
  release(seq: number): void {
    this.slots.delete(seq);
  }

  /** Forgets turns held longer than the grace. */
  expire(now: number): void {
    for (const [seq, startedAt] of this.slots) if (startedAt + this.graceMs <= now) this.slots.delete(seq);
  }

  /** True when an earlier handler still holds its turn ahead of the handler of arrival `seq`. */
  blocks(seq: number | undefined): boolean {
    if (seq === undefined) return false;
    for (const held of this.slots.keys()) if (held < seq) return true;
    return false;
  }

  /** Milliseconds until the next held turn expires (at least 1), or undefined when none is held. */
  nextExpiry(now: number): number | undefined {
    let earliest: number | undefined;
    for (const startedAt of this.slots.values()) {
      const at = startedAt + this.graceMs - now;
      if (earliest === undefined || at < earliest) earliest = at;
    }
    return earliest === undefined ? undefined : Math.max(1, earliest);
  }

  get size(): number {
    return this.slots.size;
  }

  snapshot(): [number, number][] {
    return [...this.slots.entries()];
  }
}
