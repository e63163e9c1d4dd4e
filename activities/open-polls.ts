/**
 * One open poll per agent in this worker process. The agent workflow runs one poll activity at
 * a time, so when a poll starts while an older one of the same agent is still open here, the
 * older one has outlived its activity (it timed out while the Temporal server was unreachable,
 * or was cancelled and the cancellation has not arrived yet). It is aborted, and waited for,
 * before the new poll's request goes out: otherwise the two would overlap and the service would
 * answer the older one 409 (a concurrent poll).
 *
 * Closing a request is not the service learning of it: an aborted poll's connection close travels
 * to the service like any packet, and a new request on a fresh connection can overtake it (seen in
 * the full cluster run, RELIABILITY item 14: the next poll arrived ~0.1 s before the close). So a
 * poll that ended aborted leaves a grace, `closeGraceMs` from its end, before the agent's next poll
 * here may start. Polls that ended by an answer leave none. Pure apart from the injected clock.
 */

import { abortableSleep } from './abortable-sleep';

/** How long after an aborted poll the agent's next poll on this worker waits, by default. */
export const POLL_CLOSE_GRACE_MS = 1000;

export interface OpenPollsOptions {
  /** Default {@link POLL_CLOSE_GRACE_MS}; 0: none. */
  closeGraceMs?: number;
  now?: () => number;
  /** Waits `ms`; rejects when `signal` aborts first (the new poll's activity was cancelled). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** How a registered poll ended: `aborted` when its request was cut rather than answered. */
export interface PollEnd {
  aborted: boolean;
}

interface Entry {
  stale: AbortController;
  closed: Promise<void>;
}

export class OpenPolls {
  private readonly open = new Map<string, Entry>();
  /** Per agent: when its next poll may start, after a poll that ended aborted. */
  private readonly settledAt = new Map<string, number>();
  private readonly closeGraceMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(options: OpenPollsOptions = {}) {
    this.closeGraceMs = options.closeGraceMs ?? POLL_CLOSE_GRACE_MS;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? abortableSleep;
  }

  /**
   * Registers a poll of `agentKey` after ending any older one and waiting out the grace of an
   * aborted one; resolves to the signal that aborts this poll when a newer one starts, and the
   * function to call when it has ended. `signal` (the new poll's cancellation) ends the wait.
   */
  async begin(
    agentKey: string,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<{ stale: AbortSignal; end: (how?: PollEnd) => void }> {
    for (;;) {
      const older = this.open.get(agentKey);
      if (older) {
        older.stale.abort(new StalePollError());
        await older.closed;
        continue;
      }
      const waitMs = (this.settledAt.get(agentKey) ?? 0) - this.now();
      if (waitMs <= 0) break;
      await this.sleep(waitMs, signal);
    }
    this.settledAt.delete(agentKey);
    return this.register(agentKey);
  }

  private register(agentKey: string): { stale: AbortSignal; end: (how?: PollEnd) => void } {
    const stale = new AbortController();
    let resolveClosed = (): void => undefined;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    const entry = { stale, closed };
    this.open.set(agentKey, entry);
    return {
      stale: stale.signal,
      end: (how = { aborted: false }) => {
        if (this.open.get(agentKey) !== entry) return;
        this.open.delete(agentKey);
        if (how.aborted && this.closeGraceMs > 0)
          this.settledAt.set(agentKey, this.now() + this.closeGraceMs);
        resolveClosed();
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
