/**
 * Each agent's update buffer (spec 2.4, 4.2): the numbered sequence that messages and receipts
 * share, retention, what a poll at an offset sees, and the long poll. Used by platform.ts.
 */
import type { SimClock } from './clock';
import type { AgentState, PollOutcome, SeqEntry } from './state';

export class UpdateBuffer {
  constructor(
    private readonly clock: SimClock,
    private readonly retentionMs: number,
  ) {}

  /** Numbers an entry, appends it, and wakes a waiting poll; returns its sequence number. */
  append(agent: AgentState, entry: Omit<SeqEntry, 'seq' | 'at'> & Partial<SeqEntry>): number {
    const seq = agent.nextSeq++;
    agent.entries.push({ ...entry, seq, at: this.clock.now() } as SeqEntry);
    this.wakePoll(agent);
    agent.changed();
    return seq;
  }

  private prune(agent: AgentState): void {
    const since = this.clock.now() - this.retentionMs;
    if (agent.entries.length > 0 && agent.entries[0].at < since) {
      agent.entries = agent.entries.filter((e) => e.at >= since);
    }
  }

  /** Entries a poll at `offset` sees: never-read messages and all receipts, within retention. */
  visible(agent: AgentState, offset: number, limit: number): SeqEntry[] {
    this.prune(agent);
    const out: SeqEntry[] = [];
    for (const entry of agent.entries) {
      if (entry.seq < offset) continue;
      if (entry.kind === 'message' && agent.inboundById.get(entry.message.id)?.markedRead) continue;
      out.push(entry);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Long poll. A new poll replaces the agent's earlier one, which then answers 409 (spec 4.2
   * rule 1). Resolves with entries as soon as one is visible, or on timeout.
   */
  poll(
    agent: AgentState,
    offset: number,
    limit: number,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<PollOutcome> {
    // A request its client has closed still replaces the earlier poll (a service slow to take a
    // request up cannot know better); its 409 says so, for the log.
    agent.poll?.finish(signal.aborted ? { kind: 'replaced', byAbandoned: true } : { kind: 'replaced' });
    const ready = this.visible(agent, offset, limit);
    if (ready.length > 0) return Promise.resolve({ kind: 'entries', entries: ready });
    if (timeoutMs <= 0) return Promise.resolve({ kind: 'timeout' });
    return new Promise((resolve) => {
      let done = false;
      const onAbort = (): void => finish({ kind: 'aborted' });
      const cancelTimer = this.clock.setTimer(timeoutMs, () => finish({ kind: 'timeout' }));
      const waiter = { offset, limit, finish };
      function finish(outcome: PollOutcome): void {
        if (done) return;
        done = true;
        cancelTimer();
        signal.removeEventListener('abort', onAbort);
        if (agent.poll === waiter) agent.poll = null;
        resolve(outcome);
      }
      agent.poll = waiter;
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort);
    });
  }

  private wakePoll(agent: AgentState): void {
    const poll = agent.poll;
    if (!poll) return;
    const entries = this.visible(agent, poll.offset, poll.limit);
    if (entries.length > 0) poll.finish({ kind: 'entries', entries });
  }
}
