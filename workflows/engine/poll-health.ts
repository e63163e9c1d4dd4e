/**
 * Polling's heartbeat as the agent workflow sees it: by when the next poll should have ended
 * (`pollDueBy`, workflow time, answered by the state query). A health check that finds that time
 * passed knows the agent has not polled within its cadence: its workflow task keeps failing, no
 * worker serves its activity queue, or it is stuck. And what a failed poll means for the agent's
 * state: an error to show, or a final refusal that stops it (refusal.ts) until it is resumed.
 */
import { condition } from '@temporalio/workflow';
import { failureInfo, isWorkerShutdown, type FailureInfo } from './failure';
import { refusalOf } from './refusal';
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

/**
 * Books a failed poll: its error for `amsflow state` (a poll ended by a worker's graceful shutdown
 * is none: the next worker polls again), and a final refusal stops the agent (`rt.refusal`).
 */
export function pollFailed(rt: AgentRuntime, err: unknown): FailureInfo {
  rt.pollEndedAt = rt.now();
  const info = failureInfo(err);
  if (!isWorkerShutdown(info)) rt.noteError('poll', err);
  const refusal = refusalOf(rt.agentKey, 'poll', info, new Date(rt.now()).toISOString());
  if (refusal) rt.halt(refusal);
  return info;
}
