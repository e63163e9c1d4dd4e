/**
 * The pending approvals, found through Temporal visibility (client/visibility-listing.ts), each
 * with its state from the `amsflow.approval` query.
 */
import { QueryNotRegisteredError, type Client } from '@temporalio/client';
import { APPROVAL_WORKFLOW_TYPE, approvalWorkflowId } from '../protocol/agent';
import { approvalQuery } from '../protocol/messages';
import {
  checkAgentKey,
  DEFAULT_APPROVAL_QUERY_TIMEOUT_MS,
  type ApprovalListing,
  type ListApprovalsOptions,
} from './approvals';
import { listRunning, noAnswer, queryWithin, taskQueueClause } from './visibility-listing';

/** The visibility query for pending approvals: of `agentKey` if given, on `taskQueue` if given. */
export function approvalListQuery(agentKey?: string, taskQueue?: string): string {
  const clauses = [`WorkflowType = '${APPROVAL_WORKFLOW_TYPE}'`, `ExecutionStatus = 'Running'`];
  if (agentKey !== undefined) {
    checkAgentKey(agentKey);
    // An agent key has no quotes (AGENT_KEY_PATTERN); STARTS_WITH escapes LIKE's % and _ itself.
    clauses.push(`WorkflowId STARTS_WITH '${approvalWorkflowId(agentKey, '')}'`);
  }
  if (taskQueue !== undefined) clauses.push(taskQueueClause(taskQueue));
  return clauses.join(' AND ');
}

const APPROVAL_ID = /^approval:([^:]+):(.+)$/s;

/**
 * Pending approvals, oldest first, each with its state from the approval query. One whose
 * worker does not answer in time is listed with `noState` rather than failing the list. Throws
 * {@link ApprovalRequestError} for a malformed agent key. Visibility is eventually consistent:
 * a request made a moment ago may be missing, and one decided a moment ago may still be listed.
 */
export async function listApprovals(
  client: Client,
  options: ListApprovalsOptions = {},
): Promise<ApprovalListing[]> {
  const query = approvalListQuery(options.agentKey, options.taskQueue);
  const timeoutMs = options.queryTimeoutMs ?? DEFAULT_APPROVAL_QUERY_TIMEOUT_MS;
  return listRunning(client, query, async (info): Promise<ApprovalListing> => {
    const [, agentKey = '', id = info.workflowId] = APPROVAL_ID.exec(info.workflowId) ?? [];
    const listing: ApprovalListing = {
      id,
      agentKey,
      workflowId: info.workflowId,
      runId: info.runId,
      startTime: info.startTime.toISOString(),
    };
    try {
      const view = await queryWithin(client, info.workflowId, info.runId, approvalQuery, timeoutMs);
      return { ...listing, view };
    } catch (err) {
      const noState =
        err instanceof QueryNotRegisteredError
          ? 'not an approval: it does not answer the approval query'
          : noAnswer(err);
      return { ...listing, noState };
    }
  });
}
