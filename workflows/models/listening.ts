/**
 * **Double texting**: while a model turn works (model calls, approvals, tools, its answer), one
 * wait for the human's next message stays registered with the agent (`firstOf`, again after each
 * message), so that a message sent meanwhile comes to this turn instead of a new handler. The
 * listener holds what comes; the turn decides what it does with it (`DoubleTexting`). One wait for
 * the whole turn, not one per step: between two steps there is then no moment in which a message
 * would start a handler of its own (only the instant after each message, before the wait is
 * registered again). A cancel word, or the operator's cancel, ends the listening and the turn.
 */
import { condition } from '@temporalio/workflow';
import { firstOf } from '../author/waiting';
import type { InboundMessage } from '../../protocol/conversations';
import type { DoubleTexting } from './model-options';

/** How a wait for work ended: done (its value), interrupted by a message, or cancelled. */
export type Busy<T> = { kind: 'done'; value: T } | { kind: 'interrupted' } | { kind: 'cancelled' };

/**
 * What a message does to the work under way (pure): a model call restarts (`restart`: even when
 * its answer came in the same instant, since it did not see the message); a pending approval is
 * given up unless decided (`decide`); a running tool is never interrupted (`finish`).
 */
export type WorkKind = 'restart' | 'decide' | 'finish';

/** The outcome of waiting for work (pure), from what is known when the wait ends. */
export function outcomeOf(
  kind: WorkKind,
  state: { settled: boolean; cancelled: boolean; interrupting: boolean },
): 'done' | 'interrupted' | 'cancelled' {
  if (kind === 'restart' && state.interrupting) return 'interrupted';
  if (state.settled) return 'done';
  if (state.cancelled) return 'cancelled';
  return 'interrupted';
}

/** The one listener of an `answerWithModel` call; none under `apart`. */
export class Listener {
  private held: InboundMessage[] = [];
  private done = false;
  private paused = false;
  private cancelled = false;
  /** True while a wait of the listener is registered: another wait must not start meanwhile. */
  private waiting = false;
  private loop?: Promise<void>;

  constructor(private readonly policy: DoubleTexting) {}

  /** Starts listening (not under `apart`, where every message starts its own handler). */
  start(): this {
    if (this.policy !== 'apart') this.loop = this.listen();
    return this;
  }

  private async listen(): Promise<void> {
    while (!this.done) {
      if (this.paused) await condition(() => !this.paused || this.done);
      if (this.done) break;
      this.waiting = true;
      const got = await firstOf({ until: () => this.done || this.paused, reaction: false }).finally(
        () => (this.waiting = false),
      );
      if (got.kind === 'cancel') {
        this.cancelled = true;
        break;
      }
      if (got.kind === 'message' || got.kind === 'reply') this.held.push(got.message);
    }
  }

  /** The messages held so far, handed over once. */
  take(): InboundMessage[] {
    const held = this.held;
    this.held = [];
    return held;
  }

  get holding(): boolean {
    return this.held.length > 0;
  }

  /** True once a cancel word or the operator's cancel ended the conversation. */
  get wasCancelled(): boolean {
    return this.cancelled;
  }

  /** Whether a held message interrupts work that may be interrupted. */
  private get interrupting(): boolean {
    return this.policy === 'interrupt' && this.held.length > 0;
  }

  /** Awaits `work` as `kind` says (`finish`: always to its end); a failure of the work is thrown when it is `done`. */
  async during<T>(work: Promise<T>, kind: WorkKind): Promise<Busy<T>> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    // `finish`: the work ends whatever the human does (a cancel is read once it has).
    await condition(() => settled || (kind !== 'finish' && (this.cancelled || this.interrupting)));
    const outcome = outcomeOf(kind, { settled, cancelled: this.cancelled, interrupting: this.interrupting });
    return outcome === 'done' ? { kind: 'done', value: await work } : { kind: outcome };
  }

  /** Stops listening while `work` runs (a workflow function may wait for the human itself). */
  async aside<T>(work: () => Promise<T>): Promise<T> {
    if (!this.loop) return work();
    this.paused = true;
    try {
      // The listener's wait ends first: one conversation has one wait at a time.
      await condition(() => !this.waiting);
      return await work();
    } finally {
      this.paused = false;
    }
  }

  /** Ends the wait; a message routed meanwhile is held (or handed back by the agent to a new handler). */
  async stop(): Promise<void> {
    this.done = true;
    await this.loop;
    this.loop = undefined;
  }
}
