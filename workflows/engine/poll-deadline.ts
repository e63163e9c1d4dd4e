/**
 * Polling's heartbeat as the agent workflow sees it, owned by the poll loop: when the last poll
 * ended, and by when the next should have ended (`dueBy`, workflow time, answered by the state
 * query). A health check that finds that time passed knows the agent has not polled within its
 * cadence: its workflow task keeps failing, no worker serves its activity queue, or it is stuck.
 * Pure.
 */

/** What the poll loop is about to do: wait for its window then poll, poll now, or idle. */
export type PollStep = 'paced' | 'long' | 'quiet' | 'idle';

/** What the deadlines are computed from. */
export interface DeadlineTuning {
  pollTimeoutSeconds: number;
  quietPollMs: number;
  idlePollMs: number;
  /** The updates window. */
  windowMs: number;
}

/** The longest a poll may take, start to end: its activity's start-to-close timeout. */
export function pollBudgetMs(
  tuning: Omit<DeadlineTuning, 'windowMs' | 'idlePollMs'>,
  quiet: boolean,
): number {
  return (tuning.pollTimeoutSeconds + 40) * 1000 + (quiet ? tuning.quietPollMs : 0);
}

export class PollDeadline {
  /** Workflow time the last poll ended. */
  endedAt: number | undefined;
  /** Workflow time by which the next poll should have ended; none while the agent is stopped. */
  dueBy: number | undefined;

  constructor(private readonly tuning: DeadlineTuning) {}

  /** Sets by when the poll of `step` should have ended (`notBefore`: a retry wait before it). */
  expect(step: PollStep, now: number, notBefore?: number): void {
    const { windowMs } = this.tuning;
    switch (step) {
      case 'paced':
        this.dueBy = Math.max(now, notBefore ?? 0) + windowMs + pollBudgetMs(this.tuning, false);
        break;
      case 'idle':
        this.dueBy = now + this.tuning.idlePollMs + windowMs + pollBudgetMs(this.tuning, false);
        break;
      default:
        this.dueBy = now + pollBudgetMs(this.tuning, step === 'quiet');
    }
  }

  /** A poll ended (answered or failed) at `now`. */
  ended(now: number): void {
    this.endedAt = now;
  }

  /** The agent is stopped (a final refusal): no poll is due. */
  stopped(): void {
    this.dueBy = undefined;
  }
}
