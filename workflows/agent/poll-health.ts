/**
 * Polling's heartbeat as the agent workflow sees it: by when the next poll should have ended
 * (`pollDueBy`, workflow time, answered by the state query). A health check that finds that time
 * passed knows the agent has not polled within its cadence: its workflow task keeps failing, no
 * worker serves its activity queue, or it is stuck. And the wait of a poll loop stopped by a
 * final refusal (refusal.ts).
 */
import { condition } from '@temporalio/workflow';
import type { AgentRuntime } from './runtime';

/** What the poll loop is about to do: wait for its window then poll, poll now, or idle. */
export type PollStep = 'paced' | 'long' | 'quiet' | 'idle';

/** The longest a poll may take, start to end: its activity's start-to-close timeout. */
export function pollBudgetMs(rt: Pick<AgentRuntime, 'tuning'>, quiet: boolean): number {
  return (rt.tuning.pollTimeoutSeconds + 40) * 1000 + (quiet ? rt.tuning.quietPollMs : 0);
}

/** Sets by when the poll of `step` should have ended (`notBefore`: a retry wait before it). */
export function expectPoll(rt: AgentRuntime, step: PollStep, notBefore?: number): void {
  const now = rt.now();
  const window = rt.input.limits.windowMs;
  switch (step) {
    case 'paced':
      rt.pollDueBy = Math.max(now, notBefore ?? 0) + window + pollBudgetMs(rt, false);
      break;
    case 'idle':
      rt.pollDueBy = now + rt.tuning.idlePollMs + window + pollBudgetMs(rt, false);
      break;
    default:
      rt.pollDueBy = now + pollBudgetMs(rt, step === 'quiet');
  }
}

/** Waits while a refusal stops the agent; false when continue-as-new ends polling meanwhile. */
export async function untilResumed(rt: AgentRuntime): Promise<boolean> {
  rt.pollDueBy = undefined;
  await condition(() => rt.refusal === undefined || rt.pollEnding);
  return !rt.pollEnding;
}
