/**
 * `amsflow agent resume [<key>]`: resumes an agent that a final refusal stopped (its token was
 * refused, or a poll was refused with a 4xx; `amsflow state` says `unauthorized` or `refused`).
 * It sends the agent workflow `amsflow.resume`; the agent polls again at once. A worker that
 * starts sends the same signal to each agent it serves, so a restart with a new token resumes too.
 * Then it watches the state: exit 0 once the agent took the signal and was not refused again
 * within 3 s (a refused token answers at once), 1 when the agent does not run, was refused again
 * (the fix is printed) or did not take the signal within `waitMs`. The command's entry is
 * client/cli/resume-command.ts.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { agentWorkflowId } from '../protocol/agent';
import { resumeAgentWorkflow } from '../protocol/agent-start';
import { stateQuery, askAgainOnRebuild } from '../protocol/messages';
import type { AgentStateView } from '../protocol';

/** Sends `amsflow.resume` to the agent's workflow. Throws `WorkflowNotFoundError` when it does not run. */
export async function resumeAgent(client: Client, agentKey: string, reason: string): Promise<void> {
  await resumeAgentWorkflow(client, agentKey, reason);
}

/**
 * What became of a resume, from the states before and after it: refused again (a refusal other
 * than the one it had), running (the signal was taken; polling again), or not taken yet.
 */
export function resumeResult(
  before: AgentStateView,
  after: AgentStateView,
): 'running' | 'refused' | 'pending' {
  if (after.refusal && after.refusal.at !== before.refusal?.at) return 'refused';
  return after.status === 'running' ? 'running' : 'pending';
}

/** A refused token answers at once: a resumed agent still running after this polls with it. */
const SETTLE_MS = 3_000;

/**
 * Resumes `agentKey` and watches its state; resolves to the exit code (0 resumed, 1 not running,
 * refused again or not taken within `waitMs`).
 */
export async function resume(client: Client, agentKey: string, waitMs = 10_000): Promise<number> {
  const handle = client.workflow.getHandle(agentWorkflowId(agentKey));
  let before: AgentStateView;
  try {
    before = await askAgainOnRebuild(() => handle.query(stateQuery));
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    console.error(`agent "${agentKey}" is not running (no workflow ${agentWorkflowId(agentKey)})`);
    return 1;
  }
  await resumeAgent(client, agentKey, 'amsflow agent resume');
  const started = Date.now();
  for (;;) {
    const after = await askAgainOnRebuild(() => handle.query(stateQuery));
    const result = resumeResult(before, after);
    if (result === 'refused') {
      console.error(`agent "${agentKey}" was refused again (${after.status}): ${after.refusal!.fix}`);
      return 1;
    }
    const elapsed = Date.now() - started;
    if (result === 'running' && elapsed >= Math.min(SETTLE_MS, waitMs)) {
      const was = before.status === 'running' ? ' (it was not stopped)' : '';
      console.log(`agent "${agentKey}" resumed${was}: it polls again`);
      return 0;
    }
    if (elapsed >= waitMs) {
      console.error(
        `agent "${agentKey}" did not take the resume within ${waitMs} ms: is a worker running for it?`,
      );
      return 1;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
