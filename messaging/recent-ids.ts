/**
 * A bounded set of recently handled ids, oldest evicted first. Backs the poll loop's
 * de-duplication ("a message id already handled in the process is not dispatched twice") without
 * growing for ever in a long-running process.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(readonly capacity: number = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${String(capacity)}`);
    }
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    // Re-adding moves the id to the young end.
    this.ids.delete(id);
    this.ids.add(id);
    while (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next().value as string;
      this.ids.delete(oldest);
    }
  }
}
