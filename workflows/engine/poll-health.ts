/**
 * What the poll loop tells of its health: by when its next poll should have ended (the poll
 * deadline, poll-deadline.ts), and what a failed poll means for the agent's state: an error to
 * show, or a final refusal that stops it (refusal.ts) until it is resumed.
 */
import { condition } from '@temporalio/workflow';
import { failureInfo, isWorkerShutdown, type FailureInfo } from './failure';
import type { PollStep } from './poll-deadline';
import { refusalOf } from './refusal';
import type { AgentRuntime } from './runtime';

/** Sets by when the poll of `step` should have ended (`notBefore`: a retry wait before it). */
export function expectPoll(rt: AgentRuntime, step: PollStep, notBefore?: number): void {
  rt.deadline.expect(step, rt.now(), notBefore);
}

/** Waits while a refusal stops the agent; false when continue-as-new ends polling meanwhile. */
export async function untilResumed(rt: AgentRuntime): Promise<boolean> {
  rt.deadline.stopped();
  await condition(() => rt.status.refusal === undefined || rt.lifecycle.pollEnding);
  return !rt.lifecycle.pollEnding;
}

/**
 * Books a failed poll: its error for `amsflow state` (a poll ended by a worker's graceful shutdown
 * is none: the next worker polls again), and a final refusal stops the agent, unless the poll
 * was handed out (`requestedAt`) before the last resume (`AgentStatus.halt`).
 */
export function pollFailed(rt: AgentRuntime, err: unknown, requestedAt: number): FailureInfo {
  rt.deadline.ended(rt.now());
  const info = failureInfo(err);
  if (!isWorkerShutdown(info)) rt.noteError('poll', err);
  const refusal = refusalOf(rt.agentKey, 'poll', info, new Date(rt.now()).toISOString());
  if (refusal) rt.halt(refusal, requestedAt);
  return info;
}
