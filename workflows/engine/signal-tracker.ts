/**
 * Signals to other workflows that the agent does not wait for (outcomes, receipts): each is
 * owned here, so continue-as-new can wait until all were issued, and a closed target (a handler
 * that finished) is not an error.
 */
export class SignalTracker {
  private readonly pending = new Set<Promise<void>>();

  track(signal: Promise<unknown>): void {
    const done = (): void => {
      this.pending.delete(settled);
    };
    const settled: Promise<void> = signal.then(done, done);
    this.pending.add(settled);
  }

  get size(): number {
    return this.pending.size;
  }
}
