/**
 * The running conversations of an agent, found through Temporal visibility
 * (client/visibility-listing.ts): its message handlers by id prefix
 * (`WorkflowId STARTS_WITH 'agent:<key>:msg:' AND ExecutionStatus = 'Running'`); with `all`, every
 * running workflow (on the agent's task queue) whose answer to the conversation query names the
 * agent.
 */
import { QueryNotRegisteredError, type Client } from '@temporalio/client';
import { agentKeyProblem, handlerWorkflowId } from '../protocol/agent';
import { conversationQuery } from '../protocol/messages';
import type { ConversationView } from '../protocol';
import { InvalidAgentKeyError } from './agents';
import { describeTaskProblem, workflowTaskProblem, type WorkflowTaskProblem } from './task-failure';
import { listRunning, noAnswer, queryWithin, taskQueueClause } from './visibility-listing';

/** How long one workflow may take to answer the conversation query by default. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

/** What {@link listConversations} looks at. */
export type ListConversationsOptions = {
  /** Wait at most this long for each workflow's answer (default {@link DEFAULT_QUERY_TIMEOUT_MS}). */
  queryTimeoutMs?: number;
  /**
   * With `all`: look only at workflows on this task queue (the agent's, `AMSFLOW_TASK_QUEUE`), so
   * that workflows of other applications in the namespace are not queried one by one (a workflow
   * whose worker is gone takes the whole `queryTimeoutMs` to give up). Default: every task queue.
   */
  taskQueue?: string;
} & (
  | {
      /** The agent whose conversations are listed. */
      agentKey: string;
      /**
       * False (default): the agent's message handlers (ids `agent:<key>:msg:`), each listed even
       * if it gives no conversation state. True: also every other running workflow whose
       * conversation belongs to the agent (workflows that called `useAgent`); a workflow outside
       * the handler ids that does not answer the query is left out.
       */
      all?: boolean;
    }
  | {
      /** Without an agent key: conversations of every agent (needs `all`). */
      agentKey?: undefined;
      all: true;
    }
);

/** One running workflow in {@link listConversations}. */
export interface ConversationListing {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** When the workflow started (ISO 8601). */
  startTime: string;
  /** Its answer to the conversation query; undefined when it gave none (see `noState`). */
  conversation?: ConversationView;
  /** Set instead of `conversation`: why there is no conversation state. */
  noState?: string;
  /** Set when its workflow task keeps failing (a bug in the handler): the attempt and the message. */
  taskFailure?: WorkflowTaskProblem;
}

/** The visibility query for running handler workflows of `agentKey` (checked on the dev server's SQLite). */
export function handlerListQuery(agentKey: string): string {
  // An agent key has no quotes (AGENT_KEY_PATTERN); STARTS_WITH escapes LIKE's % and _ itself.
  return `WorkflowId STARTS_WITH '${handlerWorkflowId(agentKey, '')}' AND ExecutionStatus = 'Running'`;
}
/** The visibility query of `all`: every running workflow, on `taskQueue` if given. */
export function allListQuery(taskQueue?: string): string {
  if (taskQueue === undefined) return "ExecutionStatus = 'Running'";
  return `ExecutionStatus = 'Running' AND ${taskQueueClause(taskQueue)}`;
}

const HANDLER_ID = /^agent:[^:]+:msg:/;

/**
 * Running conversations, oldest first, each with its state from the conversation query. A
 * workflow that gives no state (not a conversation, or its worker did not answer in time) is
 * listed with `noState` rather than failing the list (see {@link ListConversationsOptions.all}
 * for what `all` adds). Throws {@link InvalidAgentKeyError} for a malformed agent key.
 * Visibility is eventually consistent: a conversation that started a moment ago may be missing.
 */
export async function listConversations(
  client: Client,
  options: ListConversationsOptions,
): Promise<ConversationListing[]> {
  const { agentKey, all = false, taskQueue, queryTimeoutMs = DEFAULT_QUERY_TIMEOUT_MS } = options;
  if (agentKey !== undefined) {
    const problem = agentKeyProblem(agentKey);
    if (problem) throw new InvalidAgentKeyError(problem);
  }
  const prefix = agentKey === undefined ? undefined : handlerWorkflowId(agentKey, '');
  const query = all ? allListQuery(taskQueue) : handlerListQuery(agentKey!);
  return listRunning(client, query, async (info): Promise<ConversationListing | undefined> => {
    const listing: ConversationListing = {
      workflowId: info.workflowId,
      runId: info.runId,
      workflowType: info.type,
      startTime: info.startTime.toISOString(),
    };
    const isHandler =
      prefix === undefined ? HANDLER_ID.test(info.workflowId) : info.workflowId.startsWith(prefix);
    try {
      const conversation = await queryWithin(
        client,
        info.workflowId,
        info.runId,
        conversationQuery,
        queryTimeoutMs,
      );
      if (all && agentKey !== undefined && conversation.agentKey !== agentKey) return undefined;
      return { ...listing, conversation };
    } catch (err) {
      if (all && !isHandler) return undefined;
      const problem = await workflowTaskProblem(client, info.workflowId, info.runId).catch(() => undefined);
      if (problem) return { ...listing, noState: describeTaskProblem(problem), taskFailure: problem };
      return {
        ...listing,
        noState: err instanceof QueryNotRegisteredError ? 'not a conversation' : noAnswer(err),
      };
    }
  });
}
