/**
 * The poll activity's side of the poll lease (protocol/agent.ts): a poll starts only right
 * after Temporal acknowledged a heartbeat of this activity attempt, within `ackMaxMs`. Not
 * acknowledged (Temporal unreachable, or too slow): asked again until the heartbeat timeout has
 * passed since the last acknowledgement, when Temporal has given the attempt up and another poll
 * may be open: the activity then stops ({@link PollLeaseLostError}). Temporal no longer knows the
 * attempt (timed out, or its workflow moved on): it stops at once.
 */
import { POLL_LEASE } from '../protocol/agent';

/** What asking Temporal to record a heartbeat of this attempt came to. */
export type LeaseAnswer = 'held' | 'lost' | 'unknown';

/** Asks once, giving up after `deadlineMs` ('unknown'). */
export type AskLease = (deadlineMs: number) => Promise<LeaseAnswer>;

/** The activity attempt is no longer Temporal's: it must not poll. */
export class PollLeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PollLeaseLostError';
  }
}

/** The lease of one poll activity attempt. */
export class PollLease {
  private heldAt: number;

  constructor(
    private readonly ask: AskLease,
    private readonly heartbeatTimeoutMs: number,
    private readonly clock: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> },
  ) {
    // The attempt's start counts as held: Temporal gave it out just now.
    this.heldAt = clock.now();
  }

  /** Resolves when a poll may start now; rejects with {@link PollLeaseLostError} when it may not. */
  async confirm(signal: AbortSignal): Promise<void> {
    for (;;) {
      const askedAt = this.clock.now();
      const answer = await this.ask(POLL_LEASE.ackMaxMs);
      const answeredAt = this.clock.now();
      if (answer === 'lost')
        throw new PollLeaseLostError('Temporal no longer knows this poll activity attempt');
      if (answer === 'held' && answeredAt - askedAt <= POLL_LEASE.ackMaxMs) {
        this.heldAt = askedAt;
        return;
      }
      if (answeredAt - this.heldAt >= this.heartbeatTimeoutMs) {
        throw new PollLeaseLostError(
          `no heartbeat acknowledged by Temporal within ${this.heartbeatTimeoutMs} ms: the attempt is given up`,
        );
      }
      await this.clock.sleep(POLL_LEASE.askAgainMs, signal);
    }
  }
}
