/**
 * Conversations seen from outside (`amsflow conversations list|show|cancel`): which conversation
 * workflows of an agent run, what each is doing (the `amsflow.conversation` query), and
 * cancelling one (the `amsflow.cancel` signal; the workflow then ends its waits and tells the
 * human what was cancelled).
 *
 * A conversation is any workflow that uses the conversation API: a message handler (workflow id
 * `agent:<key>:msg:<message id>`) or a workflow that called `useAgent` (an id its author chose).
 * Handlers are found by id prefix in Temporal visibility
 * (`WorkflowId STARTS_WITH 'agent:<key>:msg:' AND ExecutionStatus = 'Running'`); other
 * conversations only by asking every running workflow (`all`, on the agent's task queue).
 *
 * Over 300 lines for now: its visibility listing is the same as client/approvals.ts's; issue 20
 * puts the one listing in a module of its own.
 */
import {
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { agentKeyProblem, handlerWorkflowId } from '../protocol/ids';
import { cancelSignal, conversationQuery } from '../protocol/messages';
import type { ConversationView } from '../workflows/types';
import { InvalidAgentKeyError } from './agents';
import { mapLimited } from './map-limited';
import { describeTaskProblem, workflowTaskProblem, type WorkflowTaskProblem } from './task-failure';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

/** How long one workflow may take to answer the conversation query by default. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

/** At most this many conversation queries are in flight at once while listing. */
const QUERY_CONCURRENCY = 8;

/** Why a conversation operation failed; `code` says which way. */
export type ConversationErrorCode =
  /** No workflow with that id (never started, or its history was deleted after retention). */
  | typeof AmsflowErrorCodes.conversationNotFound
  /** The workflow does not answer the conversation query: it does not use the conversation API. */
  | typeof AmsflowErrorCodes.notAConversation
  /** The workflow has ended: there is nothing to cancel. */
  | typeof AmsflowErrorCodes.conversationClosed
  /** The query got no answer (no worker for its task queue, or the worker did not answer in time). */
  | typeof AmsflowErrorCodes.conversationUnreachable;

/** A conversation that cannot be shown or cancelled. The message is meant for an operator. */
export class ConversationError extends AmsflowError<ConversationErrorCode> {
  constructor(
    readonly code: ConversationErrorCode,
    readonly workflowId: string,
    message: string,
  ) {
    super(message);
  }
}

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

/** {@link showConversation}'s answer: the conversation query's result and the workflow's status. */
export interface ConversationDetails extends ConversationView {
  /**
   * Temporal's execution status (`RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`,
   * `CONTINUED_AS_NEW`, `TIMED_OUT`). For an ended workflow the rest is its state at the end.
   */
  status: string;
  /**
   * Set when its workflow task keeps failing (a bug in the handler, a workflow missing from the
   * worker): the attempt and the failure's message. The rest is then what the query could still
   * tell, or only the id and the start time.
   */
  taskFailure?: WorkflowTaskProblem;
}

/** {@link cancelConversation}'s answer. */
export interface CancelledConversation {
  workflowId: string;
  /** The run that was signalled. */
  runId: string;
  reason?: string;
  /** Its state just before the cancel; undefined when it did not answer in time. */
  before?: ConversationView;
}

/** The visibility query for running handler workflows of `agentKey` (checked on the dev server's SQLite). */
export function handlerListQuery(agentKey: string): string {
  // An agent key has no quotes (AGENT_KEY_PATTERN); STARTS_WITH escapes LIKE's % and _ itself.
  return `WorkflowId STARTS_WITH '${handlerWorkflowId(agentKey, '')}' AND ExecutionStatus = 'Running'`;
}

/** The visibility query of `all`: every running workflow, on `taskQueue` if given. */
export function allListQuery(taskQueue?: string): string {
  if (taskQueue === undefined) return "ExecutionStatus = 'Running'";
  if (/['"\\]/.test(taskQueue))
    throw new TypeError(
      `task queue ${JSON.stringify(taskQueue)}: quotes and backslashes are not supported here`,
    );
  return `ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}'`;
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
  const found: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({ query })) found.push(info);

  const listings = await mapLimited(
    found,
    QUERY_CONCURRENCY,
    async (info): Promise<ConversationListing | undefined> => {
      const listing: ConversationListing = {
        workflowId: info.workflowId,
        runId: info.runId,
        workflowType: info.type,
        startTime: info.startTime.toISOString(),
      };
      const isHandler =
        prefix === undefined ? HANDLER_ID.test(info.workflowId) : info.workflowId.startsWith(prefix);
      try {
        const conversation = await queryConversation(client, info.workflowId, info.runId, queryTimeoutMs);
        if (all && agentKey !== undefined && conversation.agentKey !== agentKey) return undefined;
        return { ...listing, conversation };
      } catch (err) {
        if (all && !isHandler) return undefined;
        const problem = await workflowTaskProblem(client, info.workflowId, info.runId).catch(() => undefined);
        if (problem) return { ...listing, noState: describeTaskProblem(problem), taskFailure: problem };
        return { ...listing, noState: noStateReason(err) };
      }
    },
  );
  return listings
    .filter((l): l is ConversationListing => l !== undefined)
    .sort((a, b) => a.startTime.localeCompare(b.startTime) || a.workflowId.localeCompare(b.workflowId));
}

/**
 * The conversation state of workflow `workflowId` (its current run), with its execution status.
 * Throws {@link ConversationError}: `AMSFLOW_CONVERSATION_NOT_FOUND`, `AMSFLOW_NOT_A_CONVERSATION`,
 * `AMSFLOW_CONVERSATION_UNREACHABLE`.
 */
export async function showConversation(
  client: Client,
  workflowId: string,
  options: { queryTimeoutMs?: number } = {},
): Promise<ConversationDetails> {
  const description = await describe(client, workflowId);
  const status = description.status.name;
  const problem =
    (description.raw.pendingWorkflowTask?.attempt ?? 0) >= 2
      ? await workflowTaskProblem(client, workflowId, description.runId)
      : undefined;
  try {
    const view = await queryConversation(
      client,
      workflowId,
      description.runId,
      options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    );
    return { ...view, status, ...(problem ? { taskFailure: problem } : {}) };
  } catch (err) {
    if (!problem) throw queryFailure(workflowId, status, err);
    // A failing task answers no query: what is known without it.
    return {
      workflowId,
      agentKey: AGENT_IN_ID.exec(workflowId)?.[1] ?? '',
      waiting: false,
      startedAt: description.startTime.toISOString(),
      status,
      taskFailure: problem,
    };
  }
}

/** The agent key in the ids amsflow gives workflows (`agent:<key>:msg:…`, `reminders:<key>`, `approval:<key>:…`). */
const AGENT_IN_ID = /^(?:agent|reminders|approval):([^:]+)/;

/**
 * Cancels the running conversation `workflowId` with the `amsflow.cancel` signal: its pending
 * and later waits end as cancelled, and it tells the human what was cancelled (the workflow's
 * part). Signalling an already cancelled conversation again changes nothing. Throws
 * {@link ConversationError}: `AMSFLOW_CONVERSATION_NOT_FOUND`, `AMSFLOW_CONVERSATION_CLOSED` (it has
 * ended), `AMSFLOW_NOT_A_CONVERSATION`. A
 * conversation whose worker does not answer the query in time is signalled all the same (the
 * signal waits in its history).
 */
export async function cancelConversation(
  client: Client,
  workflowId: string,
  reason?: string,
  options: { queryTimeoutMs?: number } = {},
): Promise<CancelledConversation> {
  const description = await describe(client, workflowId);
  const status = description.status.name;
  if (status !== 'RUNNING') {
    throw new ConversationError(
      AmsflowErrorCodes.conversationClosed,
      workflowId,
      `workflow "${workflowId}" is not running (${status}): nothing to cancel`,
    );
  }
  let before: ConversationView | undefined;
  try {
    before = await queryConversation(
      client,
      workflowId,
      description.runId,
      options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    );
  } catch (err) {
    const failure = queryFailure(workflowId, status, err);
    if (failure.code !== AmsflowErrorCodes.conversationUnreachable) throw failure;
  }
  try {
    await client.workflow
      .getHandle(workflowId, description.runId)
      .signal(cancelSignal, reason === undefined ? {} : { reason });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new ConversationError(
        AmsflowErrorCodes.conversationClosed,
        workflowId,
        `workflow "${workflowId}" ended before it was cancelled`,
      );
    }
    throw err;
  }
  return {
    workflowId,
    runId: description.runId,
    ...(reason === undefined ? {} : { reason }),
    ...(before === undefined ? {} : { before }),
  };
}

async function describe(client: Client, workflowId: string) {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new ConversationError(
        AmsflowErrorCodes.conversationNotFound,
        workflowId,
        `no workflow "${workflowId}"`,
      );
    }
    throw err;
  }
}

function queryConversation(
  client: Client,
  workflowId: string,
  runId: string,
  timeoutMs: number,
): Promise<ConversationView> {
  return client.withDeadline(Date.now() + timeoutMs, () =>
    client.workflow.getHandle(workflowId, runId).query(conversationQuery),
  );
}

function noStateReason(err: unknown): string {
  if (err instanceof QueryNotRegisteredError) return 'not a conversation';
  return `no answer: ${err instanceof Error ? err.message : String(err)}`;
}

function queryFailure(workflowId: string, status: string, err: unknown): ConversationError {
  if (err instanceof ConversationError) return err;
  if (err instanceof QueryNotRegisteredError) {
    return new ConversationError(
      AmsflowErrorCodes.notAConversation,
      workflowId,
      `workflow "${workflowId}" is not a conversation: it does not answer the ${conversationQuery.name} query`,
    );
  }
  if (err instanceof WorkflowNotFoundError) {
    return new ConversationError(
      AmsflowErrorCodes.conversationNotFound,
      workflowId,
      `no workflow "${workflowId}"`,
    );
  }
  return new ConversationError(
    AmsflowErrorCodes.conversationUnreachable,
    workflowId,
    `workflow "${workflowId}" (${status}) did not answer the ${conversationQuery.name} query: ${
      err instanceof Error ? err.message : String(err)
    }`,
  );
}
