/**
 * A conversation's operations on their way to the agent (see protocol/conversations.ts), pure:
 * the order they were asked in, how they are handed over, and which have arrived. A handler starts
 * in `result` hand-over: what it asks goes with its result when it ends without ever waiting, at
 * no cost of its own. The first time it must wait for anything (the human, a timer, an activity,
 * an outcome), the operations asked so far go by signal, and from then on every batch does. The
 * agent's `moving` signal (its run is continuing as new) switches to signals too. A workflow that
 * is no handler (`useAgent`) hands over by signal from the start.
 */
import type { ConversationOp } from '../../protocol/conversations';

export type Handover = 'result' | 'signal';

export class OpsBuffer {
  private pending: ConversationOp[] = [];
  /** Operations asked so far (each one's number is its place in this count). */
  private asked = 0;
  /** Operations known to have reached the agent, or to go with the result. */
  private arrived = 0;
  /** Operations whose batch failed to reach the agent, with why. */
  private readonly lost = new Map<number, Error>();
  private batchesInFlight = 0;
  private ending = false;

  constructor(private mode: Handover) {}

  get handover(): Handover {
    return this.mode;
  }

  /** Queues `op`; returns its number (see {@link hasArrived}). */
  add(op: ConversationOp): number {
    this.pending.push(op);
    return ++this.asked;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** True when the pending operations should go by signal now (nothing in flight, not ending). */
  wantsSignal(): boolean {
    return this.pending.length > 0 && this.batchesInFlight === 0 && !this.ending;
  }

  /** Takes the pending operations for one signal; from now on hand-over is by signal. */
  takeBatch(): { ops: ConversationOp[]; last: number } {
    this.mode = 'signal';
    this.batchesInFlight++;
    const ops = this.pending;
    this.pending = [];
    return { ops, last: this.asked };
  }

  /** The batch ending at operation `last` reached the agent. */
  delivered(last: number): void {
    this.batchesInFlight--;
    this.arrived = Math.max(this.arrived, last);
  }

  /** The batch of operations `first`..`last` could not be delivered. */
  undeliverable(first: number, last: number, why: Error): void {
    this.batchesInFlight--;
    for (let n = first; n <= last; n++) this.lost.set(n, why);
  }

  /** Whether operation `n` reached the agent (or goes with the result); throws why it never will. */
  hasArrived(n: number): boolean {
    const why = this.lost.get(n);
    if (why) throw why;
    return this.mode === 'result' || n <= this.arrived;
  }

  /** Why an earlier batch could not be delivered, if one could not: nothing later can be either. */
  get failure(): Error | undefined {
    return this.lost.values().next().value;
  }

  /** The agent's run is continuing as new: hand over by signal from now on. */
  moving(): void {
    this.mode = 'signal';
  }

  get idle(): boolean {
    return this.batchesInFlight === 0;
  }

  /**
   * The workflow ends. In `result` hand-over: the operations for the result (they arrive with it).
   * In `signal` hand-over: undefined; what is pending goes by one last signal.
   */
  end(): ConversationOp[] | undefined {
    this.ending = true;
    if (this.mode !== 'result') return undefined;
    const ops = this.pending;
    this.pending = [];
    this.arrived = this.asked;
    return ops;
  }
}
