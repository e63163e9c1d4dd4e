/**
 * Starting and resuming the agent workflow from outside it, in one place for the client
 * (`ensureAgent`, `amsflow agent resume`) and a starting worker: its type, id, conflict policy and
 * start input. The Temporal client is passed in (a type-only import: workflow code may load this
 * module, and never calls it).
 */
import type { Client } from '@temporalio/client';
import type { AgentStartInput } from './agent';
import { AGENT_WORKFLOW_TASK_TIMEOUT, AGENT_WORKFLOW_TYPE, agentWorkflowId } from './agent';
import { resumeSignal } from './messages';

/** What the agent workflow is started with, and on which task queue. The key is already checked. */
export interface AgentStart extends Omit<AgentStartInput, 'handlerTaskQueue' | 'activityQueuePrefix'> {
  /** Task queue of the agent workflow and its handlers (the worker's `AMSFLOW_TASK_QUEUE`). */
  taskQueue: string;
}

/**
 * Starts the agent's workflow unless it already runs (workflow id `agent:<agentKey>`; Temporal's
 * id uniqueness gives one poll loop per agent across the fleet). Returns its first run id.
 */
export async function startAgentWorkflow(client: Client, start: AgentStart): Promise<string> {
  const handle = await client.workflow.start(AGENT_WORKFLOW_TYPE, {
    workflowId: agentWorkflowId(start.agentKey),
    taskQueue: start.taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowTaskTimeout: AGENT_WORKFLOW_TASK_TIMEOUT,
    args: [startInput(start)],
  });
  return handle.firstExecutionRunId;
}

/** The agent workflow's start input, from `start`. */
function startInput(start: AgentStart): AgentStartInput {
  const { taskQueue: _taskQueue, botConfig, ...rest } = start;
  return {
    agentKey: rest.agentKey,
    limits: rest.limits,
    tuning: rest.tuning,
    handlerWorkflowType: rest.handlerWorkflowType,
    recipient: rest.recipient,
    ...(botConfig === undefined ? {} : { botConfig }),
  };
}

/**
 * Starts the agent's workflow as {@link startAgentWorkflow} does, or, when it already runs, sends
 * it `amsflow.resume` (an agent a refusal stopped polls again: this worker may hold a new token).
 * One request (signal-with-start): a new run takes the resume in its first task, before its first
 * poll, so a refusal of that poll never looks older than the resume and is not tried again.
 */
export async function startOrResumeAgentWorkflow(
  client: Client,
  start: AgentStart,
  reason: string,
): Promise<void> {
  await client.workflow.signalWithStart(AGENT_WORKFLOW_TYPE, {
    workflowId: agentWorkflowId(start.agentKey),
    taskQueue: start.taskQueue,
    workflowTaskTimeout: AGENT_WORKFLOW_TASK_TIMEOUT,
    args: [startInput(start)],
    signal: resumeSignal,
    signalArgs: [{ reason }],
  });
}

/** Sends `amsflow.resume` to the agent's workflow. Throws `WorkflowNotFoundError` when it does not run. */
export async function resumeAgentWorkflow(client: Client, agentKey: string, reason: string): Promise<void> {
  await client.workflow.getHandle(agentWorkflowId(agentKey)).signal(resumeSignal, { reason });
}
