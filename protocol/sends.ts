/**
 * Send requests to an agent's outbox (`amsflow.send` update, `amsflow.sendRequest` signal), split
 * by purpose, their outcomes, and the receipts the agent forwards to the workflow that sent.
 *
 * Each purpose declares the other purposes' fields as absent (`?: never`): reading `req.waitId`
 * off any request compiles (it is `undefined` where it cannot be), while building a request that
 * mixes purposes does not. `sendRequestSchema` (message-schemas.ts) checks the same at runtime.
 */
import type { KnownStatusValue } from '../messaging/schemas';
import type { SendFailureType } from './failures';
import type { OutboundMessage } from './wire';

/** What every send request carries. */
interface SendRequestBase {
  /** Idempotency key: the outbox takes an id once. Workflows use `<workflow id>/<run>/send/<n>`. */
  requestId: string;
  message: OutboundMessage;
  /** Re-send after an ambiguous outcome (500, dropped connection, timeout). Duplicates possible. */
  retryAmbiguous?: boolean;
  /**
   * After an ambiguous outcome, decide from the service's receipts: accepted (the outcome is the
   * message id) or, after `reconcileSettleMs` with no receipt, not accepted (sent again).
   */
  reconcileAmbiguous?: boolean;
  /**
   * Whether the requester is told the outcome (`amsflow.sendResult`): `outcome` always (it waits
   * for the message id), `failure` only when the send failed (a question: the requester waits for
   * an answer that will not come). Absent: nobody is told; a failure is logged, counted and kept
   * in the agent's state (`amsflow state`), where operators see it.
   */
  notify?: 'outcome' | 'failure';
  /**
   * The outbox's lane: `reply` (default: a handler answering the human) goes before
   * `background` (reminders, approvals, anything a workflow says of its own accord), whatever
   * was queued first; within a lane, arrival order.
   */
  lane?: 'reply' | 'background';
}

/** Fields of other purposes: absent on this one. */
type Absent<K extends string> = { [P in K]?: never };
type QuestionField = 'expectReply' | 'waitId' | 'waitNextToo' | 'answerWords' | 'answerLabel' | 'askedBy';
type NudgeField = 'onlyWhileWaiting' | 'quoteQuestion';

/** What a workflow's request adds: who gets the outcome and the receipts, and its place in line. */
interface FromWorkflow {
  /** Workflow that gets the outcome (`amsflow.sendResult`) and the message's receipts. */
  requester: string;
  /** Arrival number of the inbound message whose handler sends this; orders first replies. */
  handlerSeq?: number;
}

/** A send from outside any workflow (`sendThroughOutbox`, `amsflow send`): the update's result is the outcome. */
export interface OutOfBandSend
  extends SendRequestBase, Absent<'requester' | 'handlerSeq' | QuestionField | NudgeField> {}

/** A workflow's plain send (`send`, `reply`, media). */
export interface WorkflowSend extends SendRequestBase, FromWorkflow, Absent<QuestionField | NudgeField> {}

/** A question: once it is sent, the human's answer (quoting it, or next) is routed to the requester. */
export interface QuestionSend extends SendRequestBase, FromWorkflow, Absent<NudgeField> {
  expectReply: true;
  /** Which wait of the requester the answer is for (see `WaitRequest`). */
  waitId?: number;
  /** The human's next message goes to the requester too. Default true. */
  waitNextToo?: boolean;
  /** Bare messages that are one of these words go to the requester too (yes/no). */
  answerWords?: string[];
  /** With `answerWords`: how "which one?" lists the question. */
  answerLabel?: string;
  /**
   * With `answerWords`: the conversation this question asks for (a model turn asking a tool's
   * approval): its own wait for the human's next message is no other open question.
   */
  askedBy?: string;
}

/**
 * A nudge: sent only while the requester's wait `onlyWhileWaiting` is open. Once the human's
 * answer was routed to it, or the wait ended, it is dropped with `NotWaiting` and nothing is
 * sent. Checked before every attempt, so a nudge never follows a received answer.
 */
export interface NudgeSend extends SendRequestBase, FromWorkflow, Absent<QuestionField> {
  onlyWhileWaiting: number;
  /** Quote the question that wait is for (the agent knows its message id; the requester need not). */
  quoteQuestion?: true;
}

/** A request to the agent's outbox, by purpose. */
export type SendRequest = OutOfBandSend | WorkflowSend | QuestionSend | NudgeSend;

/**
 * Every field of every purpose, optional but the id and the message: how code that treats every
 * purpose alike (the outbox and its carried queue) reads a request. A {@link SendRequest} is one;
 * build requests as {@link SendRequest}, which refuses a mix of purposes.
 */
export type SendRequestFields = SendRequestBase &
  Partial<FromWorkflow> &
  Partial<Pick<QuestionSend, QuestionField>> &
  Partial<Pick<NudgeSend, NudgeField>>;

export type SendOutcome =
  | { ok: true; messageId: string; attempts: number }
  | { ok: false; type: SendFailureType; message: string; attempts: number };

/** `amsflow.sendResult`: the outcome of a `sendRequestSignal`, for the requester. */
export interface SendResult {
  requestId: string;
  outcome: SendOutcome;
}

/**
 * A receipt's status: one of the values WIRE-CONVENTIONS names, or (open on purpose) a value the
 * service adds later, which passes through untouched.
 */
export type ReceiptStatus = KnownStatusValue | (string & {});

/** A delivery receipt as forwarded to the workflow that sent the message (`amsflow.receipt`). */
export interface Receipt {
  messageId: string;
  status: ReceiptStatus;
  timestamp?: string;
}
