/**
 * **Inbound budget**: how many of a human's new messages (each starting a conversation) the agent
 * takes in per window. A flood (hundreds of messages in a second) would start as many handlers and
 * queue many minutes of replies, at the service's 12 sends a minute, ahead of everything else;
 * past the budget a message is marked read and not handled, the human is told once per window
 * ("I did not read the last ones"), and the count shows in `amsflow state`. Answers to questions
 * are not counted: they go to the conversations that wait for them. Pure; carried.
 */
import { SlidingWindow } from '../../core/sliding-window';

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
