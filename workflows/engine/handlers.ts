/**
 * The handlers the dispatcher starts, one per new conversation (pure): how many new messages are
 * taken in per window (the inbound budget), the arrival order their first replies keep, and the
 * handlers that may still complete into this run.
 */
import { SlidingWindow } from '../../core/sliding-window';

/**
 * **Inbound budget**: how many of a human's new messages (each starting a conversation) the agent
 * takes in per window. A flood (hundreds of messages in a second) would start as many handlers and
 * queue many minutes of replies, at the service's 12 sends a minute, ahead of everything else;
 * past the budget a message is marked read and not handled, the human is told once per window
 * ("I did not read the last ones"), and the count shows in `amsflow state`. Answers to questions
 * are not counted: they go to the conversations that wait for them. Pure; carried.
 */

export interface InboundBudgetState {
  /** When each message taken in arrived (workflow time), within the last window. */
  inboundTimes?: number[];
  /** When the human was last told of the budget. */
  floodToldAt?: number;
  /** Messages not handled since the agent began. */
  floodDropped?: number;
}

/** What the human hears when messages go unread (once per window). */
export const FLOOD_TEXT =
  'You sent more messages than I can take in at once, so I did not read the last ones. Please wait a minute and write again.';

export class InboundBudget {
  private readonly window: SlidingWindow | undefined;
  private toldAt: number | undefined;
  dropped: number;

  constructor(
    private readonly budget: number,
    private readonly windowMs: number,
    carried?: InboundBudgetState,
  ) {
    this.window = budget > 0 ? new SlidingWindow(budget, windowMs, carried?.inboundTimes) : undefined;
    this.toldAt = carried?.floodToldAt;
    this.dropped = carried?.floodDropped ?? 0;
  }

  /**
   * A new message arrived at `now`: `take` it, or `drop` it (past the budget), telling the human
   * (`tell`) when this window has not heard it yet.
   */
  admit(now: number): 'take' | 'drop' | 'tell' {
    if (!this.window || this.window.delay(now) === 0) {
      this.window?.record(now);
      return 'take';
    }
    this.dropped++;
    if (this.toldAt !== undefined && now - this.toldAt < this.windowMs) return 'drop';
    this.toldAt = now;
    return 'tell';
  }

  snapshot(): InboundBudgetState {
    return {
      ...(this.window ? { inboundTimes: this.window.snapshot() } : {}),
      ...(this.toldAt === undefined ? {} : { floodToldAt: this.toldAt }),
      ...(this.dropped > 0 ? { floodDropped: this.dropped } : {}),
    };
  }
}

/**
 * First replies leave in arrival order: the handler of message n sends its first reply before
 * the handler of message n+1 does. A handler holds its turn from its start until it sends,
 * releases (waits for the human, sleeps, finishes), or `graceMs` pass, so one slow handler
 * delays the others by at most the grace. Pure; the outbox consults it before each send.
 */
export class FirstReplyOrder {
  /** Handlers that have not sent their first reply yet: arrival number -> start time. */
  private readonly slots: Map<number, number>;

  constructor(
    private readonly graceMs: number,
    carried: Iterable<readonly [number, number]> = [],
  ) {
    this.slots = new Map(carried);
  }

  /** The handler of arrival `seq` started at `now` and holds its turn. */
  hold(seq: number, now: number): void {
    this.slots.set(seq, now);
  }

  /** The handler of arrival `seq` sent its first reply or has none to send now. */
  release(seq: number): void {
    this.slots.delete(seq);
  }

  /** Forgets turns held longer than the grace. */
  expire(now: number): void {
    for (const [seq, startedAt] of this.slots) if (startedAt + this.graceMs <= now) this.slots.delete(seq);
  }

  /** True when an earlier handler still holds its turn ahead of the handler of arrival `seq`. */
  blocks(seq: number | undefined): boolean {
    if (seq === undefined) return false;
    for (const held of this.slots.keys()) if (held < seq) return true;
    return false;
  }

  /** Milliseconds until the next held turn expires (at least 1), or undefined when none is held. */
  nextExpiry(now: number): number | undefined {
    let earliest: number | undefined;
    for (const startedAt of this.slots.values()) {
      const at = startedAt + this.graceMs - now;
      if (earliest === undefined || at < earliest) earliest = at;
    }
    return earliest === undefined ? undefined : Math.max(1, earliest);
  }

  get size(): number {
    return this.slots.size;
  }

  snapshot(): [number, number][] {
    return [...this.slots.entries()];
  }
}

/**
 * What the outbox asks of the first-reply order before each send (the dispatcher owns the order):
 * whether an earlier handler blocks a request, when the next turn expires, and to forget turns past
 * the grace.
 */
export type FirstReplyTurns = Pick<FirstReplyOrder, 'expire' | 'blocks' | 'nextExpiry'>;

/**
 * The handlers this agent run started that may still hand their operations over in their result
 * (see protocol/conversations.ts): their result reaches only the run that started them, so
 * this run may not continue as new while one of them might still complete into it. A handler
 * leaves the set when it completes, or when its first `amsflow.ops` signal shows it hands over by
 * signal. At continue-as-new the run tells the rest (`amsflow.moving`) and only then goes: a
 * handler can no longer complete without having seen that signal. Pure.
 */
export class HandlerChildren {
  /** Workflow id -> whether the child has started (its start is initiated until then). */
  private readonly young = new Map<string, { started: boolean }>();

  /** The start of `workflowId` was issued. */
  starting(workflowId: string): void {
    this.young.set(workflowId, { started: false });
  }

  /** `workflowId` has started. */
  started(workflowId: string): void {
    const child = this.young.get(workflowId);
    if (child) child.started = true;
  }

  /** `workflowId` completed, failed, was a duplicate start, or hands over by signal. */
  gone(workflowId: string): void {
    this.young.delete(workflowId);
  }

  /** The started children that may still complete into this run. */
  youngIds(): string[] {
    return [...this.young.entries()].filter(([, c]) => c.started).map(([id]) => id);
  }

  has(workflowId: string): boolean {
    return this.young.has(workflowId);
  }

  get size(): number {
    return this.young.size;
  }
}
