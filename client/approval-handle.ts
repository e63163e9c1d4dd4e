/**
 * One approval request from outside (client/approvals.ts says what a request is): starting it,
 * idempotently by id, waiting for its decision, cancelling it.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { APPROVAL_WORKFLOW_TYPE, approvalWorkflowId, DEFAULT_TASK_QUEUE } from '../protocol/agent';
import { cancelSignal } from '../protocol/messages';
import type { ApprovalDecision } from '../protocol/approvals';
import { AmsflowErrorCodes } from '../core/error-codes';
import {
  ApprovalError,
  approvalInput,
  checkAgentKey,
  checkId,
  type ApprovalHandle,
  type ApprovalWorkflow,
  type RequestApprovalOptions,
} from './approvals';

/**
 * Asks the human through agent `agentKey` to approve `question`, and returns a handle to the
 * request at once (its `result()` waits for the decision). Starts the approval workflow
 * `approval:<agentKey>:<id>` on `taskQueue`, unless a request with that id exists: then,
 * pending or already decided, the handle is that request's and nothing new is asked (a decided
 * request stays decided until the namespace's retention drops its history). Throws
 * {@link ApprovalRequestError} for a malformed request, before contacting the server.
 */
export async function requestApproval(
  client: Client,
  options: RequestApprovalOptions,
): Promise<ApprovalHandle> {
  const input = approvalInput(options);
  const workflowId = approvalWorkflowId(input.agentKey, input.id);
  try {
    await client.workflow.start<ApprovalWorkflow>(APPROVAL_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      args: [input],
      // Running: the same request (USE_EXISTING); closed, whatever its end: the same, decided request.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return handleFor(client, input.agentKey, input.id);
}

/**
 * A handle to the approval request `id` of agent `agentKey` (made earlier, maybe by another
 * process), without contacting the server. Throws {@link ApprovalRequestError} for a malformed
 * agent key or id.
 */
export function getApprovalHandle(client: Client, agentKey: string, id: string): ApprovalHandle {
  checkAgentKey(agentKey);
  checkId(id);
  return handleFor(client, agentKey, id);
}

function handleFor(client: Client, agentKey: string, id: string): ApprovalHandle {
  const workflowId = approvalWorkflowId(agentKey, id);
  return {
    id,
    agentKey,
    workflowId,
    result: () => approvalResult(client, workflowId),
    cancel: (reason) => signalCancel(client, workflowId, reason),
  };
}

/** The approval `workflowId` has no workflow (never started, or its history is gone). */
function notFound(workflowId: string, cause: unknown): ApprovalError {
  return new ApprovalError(
    AmsflowErrorCodes.approvalNotFound,
    workflowId,
    `no approval "${workflowId}"`,
    undefined,
    {
      cause,
    },
  );
}

async function approvalResult(client: Client, workflowId: string): Promise<ApprovalDecision> {
  try {
    return await client.workflow.getHandle<ApprovalWorkflow>(workflowId).result();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw notFound(workflowId, err);
    }
    if (err instanceof WorkflowFailedError) {
      const why = err.cause?.message ?? err.message;
      throw new ApprovalError(
        AmsflowErrorCodes.approvalFailed,
        workflowId,
        `approval "${workflowId}" ended without a decision: ${why}`,
        undefined,
        { cause: err },
      );
    }
    throw err;
  }
}

/**
 * Cancels the pending approval request `id` of agent `agentKey` (see
 * {@link ApprovalHandle.cancel}): its decision becomes `cancelled`. Throws
 * {@link ApprovalRequestError} for a malformed agent key or id, {@link ApprovalError}
 * `AMSFLOW_APPROVAL_NOT_FOUND` or `AMSFLOW_APPROVAL_CLOSED` (already decided).
 */
export async function cancelApproval(
  client: Client,
  agentKey: string,
  id: string,
  reason?: string,
): Promise<void> {
  await getApprovalHandle(client, agentKey, id).cancel(reason);
}

async function signalCancel(client: Client, workflowId: string, reason: string | undefined): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).signal(cancelSignal, reason === undefined ? {} : { reason });
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    // Never started, or closed: say which.
    let status: string;
    try {
      status = (await client.workflow.getHandle(workflowId).describe()).status.name;
    } catch (describeErr) {
      if (describeErr instanceof WorkflowNotFoundError) {
        throw notFound(workflowId, err);
      }
      throw describeErr;
    }
    const decision =
      status === 'COMPLETED' ? await approvalResult(client, workflowId).catch(() => undefined) : undefined;
    const how = decision
      ? `it was already ${decision.decision}${decision.by ? ` by ${decision.by}` : ''} at ${decision.at}`
      : `it has ended (${status})`;
    throw new ApprovalError(
      AmsflowErrorCodes.approvalClosed,
      workflowId,
      `approval "${workflowId}" cannot be cancelled: ${how}`,
      decision,
      { cause: err },
    );
  }
}
