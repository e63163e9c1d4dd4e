/**
 * Approvals from outside (`amsflow approval request|list|cancel`): an application or an operator
 * asks the human a yes/no question through an agent and gets the decision back.
 *
 * Each request is one approval workflow (type `approvalWorkflow`, on the agent's workflow task
 * queue), id `approval:<agentKey>:<id>`: the workflow asks in the chat, reminds, and ends with an
 * {@link ApprovalDecision} (approved, rejected, expired or cancelled). Requests are idempotent by
 * id: requesting an id that is pending, or already decided, returns a handle to that request and
 * starts nothing (its first question, timeout and reminder stand). A request is cancelled with the
 * `amsflow.cancel` signal; pending requests are found through Temporal visibility and describe
 * themselves with the `amsflow.approval` query.
 *
 * This file: what a request is and its checks (pure but for a new UUID: the command line checks a
 * request before it connects), and the errors; requesting, waiting and cancelling are in
 * client/approval-handle.ts, listing in client/approval-listing.ts.
 */
import { randomUUID } from 'node:crypto';
import { characterCount, MAX_TEXT_CHARS } from '../messaging/validation';
import { agentKeyProblem } from '../protocol/agent';
import type { ApprovalDecision, ApprovalInput, ApprovalView } from '../protocol/approvals';
import { DurationFormatError, formatDuration, parseDuration } from '../core/durations';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

/**
 * The longest question, in characters (Unicode code points, as the service counts them): a text
 * message holds 4096, and the approval workflow frames the question in its messages
 * (`Approval needed: <question>\nReply yes or no (or react 👍 / 👎).`, 51 characters more
 * today), so 96 are left for that framing.
 */
export const MAX_QUESTION_CHARS = MAX_TEXT_CHARS - 96;

/** The longest timeout a request may have: 365 days (a longer one is almost surely a unit mistake). */
export const MAX_APPROVAL_TIMEOUT_MS = 365 * 86_400_000;

/**
 * A request id: 1 to 200 printable ASCII characters without spaces (a UUID, `deploy-1234`,
 * `PR#42`...). It becomes the end of the workflow id `approval:<agentKey>:<id>`.
 */
export const APPROVAL_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** How long one workflow may take to answer the approval query while listing, by default. */
export const DEFAULT_APPROVAL_QUERY_TIMEOUT_MS = 10_000;

/** The approval workflow's signature, for starting it by type name (the client does not load workflow code). */
export type ApprovalWorkflow = (input: ApprovalInput) => Promise<ApprovalDecision>;

/** Which part of a request {@link ApprovalRequestError} is about. */
export type ApprovalRequestField = 'agentKey' | 'id' | 'question' | 'timeout' | 'remindAfter';

/** A request (or an agent key and id) that is malformed. Nothing was started or signalled. */
export class ApprovalRequestError extends AmsflowError {
  readonly code = AmsflowErrorCodes.invalidApprovalRequest;
  constructor(
    /** The offending part of the request. */
    readonly field: ApprovalRequestField,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Why an operation on an existing approval failed; `code` says which way. */
export type ApprovalErrorCode =
  /** No approval with that id (never requested, or its history is gone after the namespace's retention). */
  | typeof AmsflowErrorCodes.approvalNotFound
  /** The approval has already ended: there is nothing to cancel (`decision` says how it ended, if known). */
  | typeof AmsflowErrorCodes.approvalClosed
  /** The approval workflow ended without a decision (it failed, was terminated or timed out). */
  | typeof AmsflowErrorCodes.approvalFailed;

/** An approval that cannot be cancelled or whose result cannot be had. The message is meant for an operator. */
export class ApprovalError extends AmsflowError<ApprovalErrorCode> {
  constructor(
    readonly code: ApprovalErrorCode,
    /** The approval workflow's id, `approval:<agentKey>:<id>`. */
    readonly workflowId: string,
    message: string,
    /** With `AMSFLOW_APPROVAL_CLOSED`: the decision the approval ended with, when it ended with one. */
    readonly decision?: ApprovalDecision,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What {@link requestApproval} asks. */
export interface RequestApprovalOptions {
  /** The agent that asks (its workflow must run: the approval sends and receives through it). */
  agentKey: string;
  /** The question, as the human reads it in the chat: 1 to {@link MAX_QUESTION_CHARS} (4000) characters, not blank. */
  question: string;
  /**
   * How long the human has to answer: a duration (`'15s'`, `'10m'`, `'2h'`, `'3d'`, `'1500ms'`)
   * or a number of ms; more than 0 and at most {@link MAX_APPROVAL_TIMEOUT_MS}. After it the
   * decision is `expired`.
   */
  timeout: string | number;
  /**
   * Remind the human after this long without an answer (the workflow repeats it every as long
   * again, at most 3 times). Shorter than `timeout`. Default: no reminder.
   */
  remindAfter?: string | number;
  /**
   * The request id ({@link APPROVAL_ID_PATTERN}); requests with the same agent and id are one
   * request. Default: a new UUID.
   */
  id?: string;
  /** The agent's workflow task queue (the worker's `AMSFLOW_TASK_QUEUE`). Default `amsflow`. */
  taskQueue?: string;
}

/** One approval request: its ids, its decision, and cancelling it. */
export interface ApprovalHandle {
  /** The request id. */
  readonly id: string;
  readonly agentKey: string;
  /** The approval workflow's id, `approval:<agentKey>:<id>`. */
  readonly workflowId: string;
  /**
   * Waits for the decision (approved, rejected, expired or cancelled) and resolves with it; for
   * an approval that has already ended, at once. Rejects with {@link ApprovalError}: `AMSFLOW_APPROVAL_NOT_FOUND`,
   * `AMSFLOW_APPROVAL_FAILED` (the workflow ended without a decision).
   */
  result(): Promise<ApprovalDecision>;
  /**
   * Cancels the pending approval (the `amsflow.cancel` signal): its decision becomes
   * `cancelled`, by `operator`. Resolves once the signal is recorded. Rejects with
   * {@link ApprovalError}: `AMSFLOW_APPROVAL_NOT_FOUND`, `AMSFLOW_APPROVAL_CLOSED` (already decided; see its `decision`).
   */
  cancel(reason?: string): Promise<void>;
}

/** One pending approval in {@link listApprovals}. */
export interface ApprovalListing {
  /** The request id. */
  id: string;
  agentKey: string;
  workflowId: string;
  runId: string;
  /** When the approval workflow started (ISO 8601). */
  startTime: string;
  /** Its answer to the approval query; undefined when it gave none (see `noState`). */
  view?: ApprovalView;
  /** Set instead of `view`: why there is no state (e.g. its worker did not answer in time). */
  noState?: string;
}

/** What {@link listApprovals} looks at. */
export interface ListApprovalsOptions {
  /** Only this agent's approvals (ids `approval:<agentKey>:`). Default: every agent's. */
  agentKey?: string;
  /** Only approvals on this task queue. Default: any. */
  taskQueue?: string;
  /** Wait at most this long for each approval's answer (default {@link DEFAULT_APPROVAL_QUERY_TIMEOUT_MS}). */
  queryTimeoutMs?: number;
}

/** Throws {@link ApprovalRequestError} unless `agentKey` is a legal agent key. */
export function checkAgentKey(agentKey: unknown): asserts agentKey is string {
  const problem = agentKeyProblem(agentKey);
  if (problem) throw new ApprovalRequestError('agentKey', problem);
}

/** Why `id` is not a legal request id ({@link APPROVAL_ID_PATTERN}), or undefined when it is. */
export function approvalIdProblem(id: unknown): string | undefined {
  if (typeof id === 'string' && APPROVAL_ID_PATTERN.test(id)) return undefined;
  const shown = typeof id === 'string' ? JSON.stringify(id.slice(0, 120)) : String(id);
  return `request id ${shown} is not allowed: use 1 to 200 printable ASCII characters without spaces`;
}

/** Throws {@link ApprovalRequestError} unless `id` is a legal request id. */
export function checkId(id: unknown): asserts id is string {
  const problem = approvalIdProblem(id);
  if (problem) throw new ApprovalRequestError('id', problem);
}

/** `value` (a duration or ms) in ms, checked to be in (0, max]. */
function durationMs(field: 'timeout' | 'remindAfter', value: unknown, max: number, maxText: string): number {
  const name = field === 'timeout' ? 'the timeout' : 'remind-after';
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new ApprovalRequestError(
        field,
        `${name} must be a whole number of ms or a duration such as "10m", not ${value}`,
      );
    }
    ms = value;
  } else if (typeof value === 'string') {
    try {
      ms = parseDuration(value);
    } catch (err) {
      if (err instanceof DurationFormatError) {
        throw new ApprovalRequestError(field, `${name}: ${err.message}`, { cause: err });
      }
      throw err;
    }
  } else {
    throw new ApprovalRequestError(field, `${name} is required: a duration such as "10m", or ms`);
  }
  if (ms <= 0) throw new ApprovalRequestError(field, `${name} must be longer than 0`);
  if (ms > max)
    throw new ApprovalRequestError(field, `${name} (${formatDuration(ms)}) must be at most ${maxText}`);
  return ms;
}

/**
 * The approval workflow's input for `options`, checked: the agent key, the id (a new UUID when
 * absent), the question, the timeout and the reminder. Throws {@link ApprovalRequestError} for
 * the first problem. Pure but for the UUID: the command line calls it before it connects.
 */
export function approvalInput(
  options: Omit<RequestApprovalOptions, 'taskQueue'>,
  now: number = Date.now(),
): ApprovalInput {
  checkAgentKey(options.agentKey);
  const id = options.id ?? randomUUID();
  checkId(id);
  const { question } = options;
  if (typeof question !== 'string' || question.trim() === '') {
    throw new ApprovalRequestError('question', 'the question is empty: say what the human approves');
  }
  const chars = characterCount(question);
  if (chars > MAX_QUESTION_CHARS) {
    throw new ApprovalRequestError(
      'question',
      `the question is ${chars} characters; at most ${MAX_QUESTION_CHARS} fit in one message with the approval's framing`,
    );
  }
  const timeoutMs = durationMs('timeout', options.timeout, MAX_APPROVAL_TIMEOUT_MS, '365d');
  const input: ApprovalInput = { agentKey: options.agentKey, id, question, timeoutMs, requestedAt: now };
  if (options.remindAfter !== undefined) {
    const remindAfterMs = durationMs('remindAfter', options.remindAfter, MAX_APPROVAL_TIMEOUT_MS, '365d');
    if (remindAfterMs >= timeoutMs) {
      throw new ApprovalRequestError(
        'remindAfter',
        `remind-after (${formatDuration(remindAfterMs)}) must be shorter than the timeout (${formatDuration(timeoutMs)}), or no reminder would come`,
      );
    }
    input.remindAfterMs = remindAfterMs;
  }
  return input;
}
