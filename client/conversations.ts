/**
 * Conversations seen from outside (`amsflow conversations list|show|cancel`): which conversation
 * workflows of an agent run, what each is doing (the `amsflow.conversation` query), and
 * cancelling one (the `amsflow.cancel` signal; the workflow then ends its waits and tells the
 * human what was cancelled).
 *
 * A conversation is any workflow that uses the conversation API: a message handler (workflow id
 * `agent:<key>:msg:<message id>`) or a workflow that called `useAgent` (an id its author chose).
 * Listing them is client/conversation-listing.ts.
 */
import { QueryNotRegisteredError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { cancelSignal, conversationQuery } from '../protocol/messages';
import type { ConversationView } from '../protocol';
import { DEFAULT_QUERY_TIMEOUT_MS } from './conversation-listing';
import { workflowTaskProblem, type WorkflowTaskProblem } from './task-failure';
import { queryWithin } from './visibility-listing';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

export {
  allListQuery,
  DEFAULT_QUERY_TIMEOUT_MS,
  handlerListQuery,
  listConversations,
  type ConversationListing,
  type ListConversationsOptions,
} from './conversation-listing';

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

/** The agent key in the ids amsflow gives workflows (`agent:<key>:msg:…`, `reminders:<key>`, `approval:<key>:…`, `memory:<key>`). */
const AGENT_IN_ID = /^(?:agent|reminders|approval|memory):([^:]+)/;

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
  return queryWithin(client, workflowId, runId, conversationQuery, timeoutMs);
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
