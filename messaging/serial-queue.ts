/**
 * A first-in, first-out queue that runs one task at a time. The client puts every send through
 * one, because the spec forbids concurrent sends to one recipient (their arrival order would not be
 * guaranteed) and an agent has exactly one recipient.
 */

interface Entry {
  start: () => void;
}

export class SerialQueue {
  private running = false;
  private readonly pending: Entry[] = [];

  /** Tasks waiting behind the running one. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * Runs `task` after every task queued before it has settled. If `signal` aborts while the task
   * is still waiting, it is dropped and the promise rejects with `signal.reason`.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.pending.indexOf(entry);
        if (i >= 0) {
          this.pending.splice(i, 1);
          reject(signal?.reason as Error);
        }
      };
      const entry: Entry = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running = true;
          void task()
            .then(resolve, reject)
            .finally(() => {
              this.running = false;
              this.next();
            });
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.push(entry);
      if (!this.running) this.next();
    });
  }

  private next(): void {
    const entry = this.pending.shift();
    entry?.start();
  }
}
