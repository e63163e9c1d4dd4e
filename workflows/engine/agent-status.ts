/**
 * What the agent shows of itself (`amsflow state`), carried (pure): its health (the last error,
 * the sends given up, the final refusal) and its counters.
 */
import type { AgentError, AgentRefusal, FailedSend, AgentCounters } from '../../protocol/agent';
import type { FailureInfo } from './request-policy';

/**
 * What the agent shows of its health, one owner: the last error (for `amsflow state`), the last
 * send requests given up, and the final refusal that stopped it, if any (request-policy.ts). Carried across continue-as-new. Pure: the
 * runtime logs and counts a new refusal.
 */

/** Failed sends kept for operators. */
export const FAILED_SENDS_KEPT = 10;

export class AgentStatus {
  private error: AgentError | undefined;
  private stop: AgentRefusal | undefined;
  private failed: FailedSend[];
  private resumed: number | undefined;

  constructor(carried?: {
    lastError?: AgentError;
    refusal?: AgentRefusal;
    failedSends?: FailedSend[];
    resumedAt?: number;
  }) {
    this.error = carried?.lastError;
    this.stop = carried?.refusal;
    this.failed = (carried?.failedSends ?? []).slice(-FAILED_SENDS_KEPT);
    this.resumed = carried?.resumedAt;
  }

  /** When the agent was last resumed (workflow time), stopped or not: carried. */
  get resumedAt(): number | undefined {
    return this.resumed;
  }

  /** The last send requests given up, oldest first. */
  get failedSends(): FailedSend[] {
    return [...this.failed];
  }

  /** Books a send request given up. */
  sendFailed(failed: FailedSend): void {
    this.failed = [...this.failed, failed].slice(-FAILED_SENDS_KEPT);
  }

  get lastError(): AgentError | undefined {
    return this.error;
  }

  /** Set while a final refusal has stopped the agent (polling waits, sends fail). */
  get refusal(): AgentRefusal | undefined {
    return this.stop;
  }

  /** Books `info` as the last error, seen at `at` (ISO time). */
  noteError(where: AgentError['where'], info: Pick<FailureInfo, 'type' | 'message'>, at: string): void {
    this.error = { at, where, type: info.type ?? 'Error', message: info.message };
  }

  /**
   * Stops the agent for `refusal`, met by a request handed out at `requestedAt`; false when it
   * was stopped already (the first refusal stays) or when the request was handed out before the
   * last resume: a worker starting with a new token resumes the agent, and a refusal of a request
   * the old worker made with the old token (its failure can arrive after the resume) says nothing
   * of the new one. The next request tries it.
   */
  halt(refusal: AgentRefusal, requestedAt: number): boolean {
    if (this.stop || this.predatesResume(requestedAt)) return false;
    this.stop = refusal;
    return true;
  }

  /** Whether a request handed out at `requestedAt` predates the last resume. */
  predatesResume(requestedAt: number): boolean {
    return this.resumed !== undefined && requestedAt < this.resumed;
  }

  /** Ends a refusal, resumed at `at`; returns the one it ended, if any. */
  resume(at: number): AgentRefusal | undefined {
    const ended = this.stop;
    this.stop = undefined;
    this.resumed = at;
    return ended;
  }
}

/**
 * The agent's counters (`amsflow state`), carried across continue-as-new. One owner, methods
 * per event: the poll loop counts polls, the dispatcher arrivals and receipts, the send loop
 * sends. The arrival number (`seq`) is also the ordering key of first replies. Pure.
 */

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
