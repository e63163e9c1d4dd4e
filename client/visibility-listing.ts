/**
 * Listing running workflows through Temporal visibility and asking each for its state: the one
 * way `listApprovals` and `listConversations` find what they list. A workflow that does not
 * answer in time is the caller's to describe (a listing never fails for one slow worker);
 * the result is oldest first.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { mapLimited } from '../core/map-limited';
import { askAgainOnRebuild } from '../protocol/messages';

/** At most this many queries are in flight at once while listing. */
export const QUERY_CONCURRENCY = 8;

/** What every listed workflow carries, for the order of a listing. */
export interface ListedWorkflow {
  workflowId: string;
  /** When the workflow started (ISO 8601). */
  startTime: string;
}

/**
 * The visibility clause for `taskQueue`. Throws TypeError for quotes and backslashes: a task
 * queue is put in the query as it is, and visibility has no escape for them.
 */
export function taskQueueClause(taskQueue: string): string {
  if (/['"\\]/.test(taskQueue))
    throw new TypeError(
      `task queue ${JSON.stringify(taskQueue)}: quotes and backslashes are not supported here`,
    );
  return `TaskQueue = '${taskQueue}'`;
}

/** Oldest first; workflows that started in the same millisecond by id, so a listing is stable. */
export function byStartTime(a: ListedWorkflow, b: ListedWorkflow): number {
  return a.startTime.localeCompare(b.startTime) || a.workflowId.localeCompare(b.workflowId);
}

/** Why a workflow gave no state when its query failed for a reason other than not having the query. */
export function noAnswer(err: unknown): string {
  return `no answer: ${err instanceof Error ? err.message : String(err)}`;
}

/** Asks workflow `workflowId` (run `runId`) `query`, giving up after `timeoutMs`. */
export function queryWithin<R>(
  client: Client,
  workflowId: string,
  runId: string | undefined,
  query: QueryDefinition<R, []>,
  timeoutMs: number,
): Promise<R> {
  const handle = client.workflow.getHandle(workflowId, runId);
  return client.withDeadline(Date.now() + timeoutMs, () => askAgainOnRebuild(() => handle.query(query)));
}

/**
 * The workflows visibility finds for `query`, each made a listing by `describe` (at most
 * {@link QUERY_CONCURRENCY} at once; undefined leaves it out), oldest first.
 */
export async function listRunning<L extends ListedWorkflow>(
  client: Client,
  query: string,
  describe: (info: WorkflowExecutionInfo) => Promise<L | undefined>,
): Promise<L[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({ query })) found.push(info);
  const listings = await mapLimited(found, QUERY_CONCURRENCY, describe);
  return listings.filter((l): l is L => l !== undefined).sort(byStartTime);
}
