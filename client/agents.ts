/**
 * What an application or an operator uses from outside the workers: make sure an agent's
 * workflow runs, send through its outbox out of band, read its state.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { resolveLimits, type Limits } from '../messaging/limits';
import { agentKeyProblem, agentWorkflowId } from '../protocol/agent';
import { AGENT_MOVING } from '../protocol/failures';
import { sendUpdate, stateQuery, askAgainOnRebuild } from '../protocol/messages';
import { startAgentWorkflow } from '../protocol/agent-start';
import type { AgentStateView, AgentTuning, OutboundMessage, SendOutcome } from '../protocol';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

export interface EnsureAgentOptions {
  agentKey: string;
  /** Task queue of the agent workflow and its handlers (the worker's `AMSFLOW_TASK_QUEUE`). */
  taskQueue: string;
  /** Per-endpoint limits; defaults are the spec's (section 8). */
  limits?: Partial<Limits>;
  tuning?: AgentTuning;
  /** Workflow type started for each unrouted message. Default `onMessage`. */
  handlerWorkflowType?: string;
  recipient?: string;
  /** The bot's configuration, handed to every handler as `ctx.config` (read when the agent starts). */
  botConfig?: unknown;
}

/** An agent key that cannot be part of a workflow id (see `AGENT_KEY_PATTERN`). Nothing was started. */
export class InvalidAgentKeyError extends AmsflowError {
  readonly code = AmsflowErrorCodes.invalidAgentKey;
  constructor(readonly problem: string) {
    super(problem);
  }
}

function checkAgentKey(agentKey: unknown): void {
  const problem = agentKeyProblem(agentKey);
  if (problem) throw new InvalidAgentKeyError(problem);
}

/**
 * Starts the agent's workflow unless it already runs (workflow id `agent:<agentKey>`; Temporal's
 * id uniqueness gives one poll loop per agent across the fleet). Returns its run id. Throws
 * {@link InvalidAgentKeyError} for a key that cannot be part of a workflow id.
 */
export async function ensureAgent(client: Client, options: EnsureAgentOptions): Promise<string> {
  checkAgentKey(options.agentKey);
  return startAgentWorkflow(client, { ...options, limits: resolveLimits(options.limits) });
}

export interface OutOfBandSendOptions {
  /** Idempotency key: the outbox takes a request id once. Default: a new UUID. */
  requestId?: string;
  /** Re-send after an ambiguous outcome; the human may get a duplicate. Default false. */
  retryAmbiguous?: boolean;
  /** Settle an ambiguous outcome from the service's receipts (see `workflows/README.md`). Default false. */
  reconcileAmbiguous?: boolean;
}

/** How long a send waits for an agent moving to its next run (continue-as-new) at most. */
const MOVING_WAIT_MS = 60_000;

/**
 * Sends `message` through the agent's outbox and waits for the outcome (message id or typed
 * failure). While the agent's run is moving on (continue-as-new) the update is refused
 * (`AgentMoving`) before it enters history; the same request goes again, to the next run, after a
 * short pause (for up to a minute).
 */
export async function sendThroughOutbox(
  client: Client,
  agentKey: string,
  message: OutboundMessage,
  options: OutOfBandSendOptions = {},
): Promise<SendOutcome> {
  checkAgentKey(agentKey);
  const requestId = options.requestId ?? `oob/${randomUUID()}`;
  const handle = client.workflow.getHandle(agentWorkflowId(agentKey));
  const deadline = Date.now() + MOVING_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await handle.executeUpdate(sendUpdate, {
        args: [
          {
            requestId,
            message,
            retryAmbiguous: options.retryAmbiguous,
            reconcileAmbiguous: options.reconcileAmbiguous,
          },
        ],
        updateId: requestId,
      });
    } catch (err) {
      if (!agentMoving(err) || Date.now() >= deadline) throw err;
      await delay(Math.min(1000, 50 * 2 ** attempt));
    }
  }
}

/** Whether `err` is the agent's refusal while it moves to its next run (`AGENT_MOVING`). */
export function agentMoving(err: unknown): boolean {
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === AGENT_MOVING
  );
}

/** The agent's state as JSON (offset, queue length, waiters, last error...), or undefined if it does not run. */
export async function getAgentState(client: Client, agentKey: string): Promise<AgentStateView | undefined> {
  checkAgentKey(agentKey);
  try {
    const handle = client.workflow.getHandle(agentWorkflowId(agentKey));
    return await askAgainOnRebuild(() => handle.query(stateQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * How the command line says that agent `agentKey` is not running (`amsflow state`, and every
 * command that needs the agent): `status` is the status of its ended workflow, if it has one.
 */
export function agentNotRunningMessage(agentKey: string, status?: string): string {
  const id = agentWorkflowId(agentKey);
  return status === undefined
    ? `agent "${agentKey}" is not running (no workflow ${id})`
    : `agent "${agentKey}" is not running (its workflow ${id} is ${status})`;
}

/** What {@link agentRunning} found. */
export interface AgentRunning {
  /** Why the agent cannot take work (see {@link agentNotRunningMessage}); undefined when its workflow runs. */
  problem?: string;
  /** The task queue of its workflow, when it has one. */
  taskQueue?: string;
}

/** Whether agent `agentKey`'s workflow runs, and on which task queue. One describe call; nothing is started or signalled. */
export async function agentRunning(client: Client, agentKey: string): Promise<AgentRunning> {
  checkAgentKey(agentKey);
  try {
    const { status, taskQueue } = await client.workflow.getHandle(agentWorkflowId(agentKey)).describe();
    return status.name === 'RUNNING'
      ? { taskQueue }
      : { problem: agentNotRunningMessage(agentKey, status.name), taskQueue };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { problem: agentNotRunningMessage(agentKey) };
    throw err;
  }
}
