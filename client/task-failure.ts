/**
 * Whether a workflow is stuck on a failing workflow task (a bug in a handler, a workflow type
 * missing from the worker's bundle): Temporal retries such a task forever and the workflow
 * answers no query meanwhile. Its pending task's attempt says how often it was tried, and the
 * last `WorkflowTaskFailed` event of its history (the first failure is recorded; the retries are
 * not) says why. For `amsflow conversations list|show`.
 */
import type { Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';

/** A workflow whose workflow task keeps failing. */
export interface WorkflowTaskProblem {
  /** The attempt the pending workflow task is at (2 after one failure). */
  attempt: number;
  /** The failure's message, when the history has it. */
  message?: string;
}

/** How far back from the end of the history to look for the failure (the events after it are few). */
const EVENTS_LOOKED_AT = 100;

/** The problem of `workflowId`'s run `runId`, or undefined when its workflow task is not failing. */
export async function workflowTaskProblem(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<WorkflowTaskProblem | undefined> {
  const description = await client.workflow.getHandle(workflowId, runId).describe();
  const attempt = description.raw.pendingWorkflowTask?.attempt ?? 0;
  if (attempt < 2) return undefined;
  const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId, runId: description.runId },
    maximumPageSize: EVENTS_LOOKED_AT,
  });
  const failed = page.history?.events?.find((e) => e.workflowTaskFailedEventAttributes)
    ?.workflowTaskFailedEventAttributes?.failure;
  if (!failed) return { attempt };
  // The failure's message may be encoded (an encrypting codec): decode it as the client would.
  const error = await decodeOptionalFailureToOptionalError(client.options.loadedDataConverter, failed).catch(
    () => undefined,
  );
  return { attempt, message: error?.message ?? failed.message ?? undefined };
}

/** The problem as an operator reads it. */
export function describeTaskProblem(problem: WorkflowTaskProblem): string {
  return `workflow task failing (attempt ${problem.attempt})${problem.message ? `: ${problem.message}` : ''}`;
}
