/**
 * The agent's counters (`amsflow state`), carried across continue-as-new. One owner, methods
 * per event: the poll loop counts polls, the dispatcher arrivals and receipts, the send loop
 * sends. The arrival number (`seq`) is also the ordering key of first replies. Pure.
 */
import type { AgentCounters } from '../../protocol';

export class Tally {
  private readonly counts: AgentCounters;
  private seq: number;

  constructor(carried?: { counters?: AgentCounters; inboundSeq?: number }) {
    this.counts = { received: 0, sent: 0, failedSends: 0, polls: 0, receipts: 0, ...carried?.counters };
    this.seq = carried?.inboundSeq ?? 0;
  }

  /** The arrival number of the last inbound message (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Numbers the next inbound message. */
  arrival(): number {
    return ++this.seq;
  }

  polled(polls: number): void {
    this.counts.polls += polls;
  }

  received(): void {
    this.counts.received++;
  }

  receipt(): void {
    this.counts.receipts++;
  }

  sent(ok: boolean): void {
    if (ok) this.counts.sent++;
    else this.counts.failedSends++;
  }

  /** A copy, for the state query and the carried state. */
  snapshot(): AgentCounters {
    return { ...this.counts };
  }
}
