/**
 * One open poll per agent in this worker process. The agent workflow runs one poll activity at
 * a time, so when a poll starts while an older one of the same agent is still open here, the
 * older one has outlived its activity (it timed out while the Temporal server was unreachable,
 * or was cancelled and the cancellation has not arrived yet). It is aborted, and waited for,
 * before the new poll's request goes out: otherwise the two would overlap and the service would
 * answer the older one 409 (a concurrent poll). Pure apart from the abort signals.
 */
export class OpenPolls {
  private readonly open = new Map<string, { stale: AbortController; closed: Promise<void> }>();

  /**
   * Registers a poll of `agentKey` after ending any older one; resolves to the signal that
   * aborts this poll when a newer one starts, and the function to call when it has closed.
   */
  async begin(agentKey: string): Promise<{ stale: AbortSignal; end: () => void }> {
    for (let older = this.open.get(agentKey); older; older = this.open.get(agentKey)) {
      older.stale.abort(new StalePollError());
      await older.closed;
    }
    const stale = new AbortController();
    let end = (): void => undefined;
    const closed = new Promise<void>((resolve) => {
      end = resolve;
    });
    const entry = { stale, closed };
    this.open.set(agentKey, entry);
    return {
      stale: stale.signal,
      end: () => {
        if (this.open.get(agentKey) === entry) this.open.delete(agentKey);
        end();
      },
    };
  }

  /** How many polls are open (one per agent at most). */
  get size(): number {
    return this.open.size;
  }
}

/** The reason a poll was aborted: a newer poll of the same agent started in this process. */
export class StalePollError extends Error {
  constructor() {
    super('poll ended: a newer poll of the same agent started on this worker');
    this.name = 'StalePollError';
  }
}
