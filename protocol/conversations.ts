/**
 * Conversations with the human and what they exchange with their agent: what a conversation
 * (handler) workflow is started with and answers operators, the operations it hands its agent
 * (send requests, waits), what the agent hands back (routed and late messages, send outcomes,
 * receipts, the routing proof), the key of a bare answer, and the service's wire types they
 * carry. The failure types every side matches on are failures.ts; the approval's contract is
 * approvals.ts.
 */
import type { MemoryView } from './models';
import type { SendFailureType } from './failures';
import type { InboundMessage, KnownStatusValue, OutgoingMessage } from '../messaging/schemas';

/**
 * The contract between the agent workflow and the conversation (handler) workflows it starts,
 * and what their query answers operators (`amsflow conversations show`).
 */

/** What a message handler workflow receives. */
export interface HandlerInput {
  agentKey: string;
  agentWorkflowId: string;
  message: InboundMessage;
  /** Arrival number of the message in this agent (1, 2, ...). */
  seq: number;
  /** The bot's configuration (`AMSFLOW_BOT_CONFIG`), as the agent workflow was started with it. */
  config?: unknown;
  /** Prefix of the agent's activity task queues (`<prefix>-media`, ...). */
  activityQueuePrefix: string;
}

/** What `amsflow conversations show` prints: one conversation (handler workflow) as it stands. */
export interface ConversationView {
  workflowId: string;
  agentKey: string;
  /** The author's name for it (`nameConversation('signup')`), if any. */
  name?: string;
  /** The current step: the pending question's `step` option, or its text. */
  step?: string;
  /** True while it waits for the human. */
  waiting: boolean;
  /** Workflow time (ISO 8601) when the current wait began. */
  waitingSince?: string;
  /** Workflow time (ISO 8601) when the conversation began. */
  startedAt: string;
  /** Set once it was cancelled (by a cancel word or from outside). */
  cancelled?: 'human' | 'operator';
  /** An agent's model memory (`memory:<agentKey>`): the turns the model is shown. */
  memory?: MemoryView;
}

/**
 * What a conversation workflow (a handler, or a workflow that called `useAgent`) asks of its
 * agent workflow, as one ordered list of operations: send requests, wait registrations and ends,
 * the release of its first-reply turn, typing indicators and receipt watches. A conversation
 * buffers them and hands them over in one go: in the `amsflow.ops` signal at the end of a
 * workflow task in which it waits for something, or, when a handler ends without ever having
 * waited, in its result (`HandlerResult`), which reaches the agent with the child's completion
 * and costs no signal and no workflow task of its own. A signal from workflow code is delivered
 * once (Temporal de-duplicates its delivery); send requests are de-duplicated by id besides.
 */

/** One operation, in the order the conversation asked for it. */
export type ConversationOp =
  /** A send request to the outbox (its `requester` is the batch's `from`). */
  | { op: 'send'; request: SendRequest }
  /** Registers or ends a wait for the human (its `workflowId` is the batch's `from`). */
  | { op: 'wait'; request: WaitRequest }
  /** The handler of arrival `seq` has no first reply to send now: later replies may go. */
  | { op: 'release'; seq: number }
  /** Show the typing indicator on an inbound message. */
  | { op: 'typing'; messageId: string }
  /** Forward this sent message's receipts to the conversation (`amsflow.receipt`). */
  | { op: 'receipts'; messageId: string };

/** `amsflow.ops`: a conversation's operations, handed over in one signal. */
export interface ConversationOps {
  /** The conversation's workflow id: every request and wait in `ops` is its own. */
  from: string;
  ops: ConversationOp[];
}

/**
 * What a handler workflow returns: the operations it had not handed over by signal (it ended
 * without waiting for anything). The agent run that started it takes them from the completion.
 */
export interface HandlerResult {
  ops: ConversationOp[];
}

/**
 * Waits for the human's messages (`amsflow.wait`), as a union on `wait`, and what the agent hands
 * a waiting workflow (`amsflow.inbound`, `amsflow.late`). Like send requests, each variant
 * declares the other's fields absent, so that reading them off any request compiles.
 */

/**
 * Registers a workflow's wait for the human's next message. `waitId` numbers the workflow's waits
 * (1, 2, ...): a message routed to a wait that has ended is handed back and ignored.
 */
export interface WaitStart {
  workflowId: string;
  wait: true;
  waitId?: number;
  /** Also take a message quoting (or reacting to) this message id. */
  questionId?: string;
  /** Take the human's next message too. Default true. */
  nextToo?: boolean;
  /** Also take a bare message that is one of these words (an approval's yes/no). */
  answerWords?: string[];
  /**
   * How "which one?" lists this wait when a bare answer could be for it and another (its
   * question, shortened): with `answerWords`, or for any wait for the next message.
   */
  label?: string;
  /** With `answerWords`: the conversation this wait asks for (see `QuestionSend.askedBy`). */
  askedBy?: string;
  lateText?: never;
}

/** Ends a workflow's wait. */
export interface WaitEnd {
  workflowId: string;
  wait: false;
  waitId?: number;
  /** What the agent answers a late answer once this workflow has ended. */
  lateText?: string;
  questionId?: never;
  nextToo?: never;
  answerWords?: never;
  label?: never;
  askedBy?: never;
}

/** Registers (`wait: true`) or ends (`wait: false`) a workflow's wait. */
export type WaitRequest = WaitStart | WaitEnd;

/** An inbound message routed to a workflow that was waiting for it. */
export interface RoutedMessage {
  message: InboundMessage;
  seq: number;
  /** The wait it was routed to (absent for waits registered without an id). */
  waitId?: number;
  /** The question that wait is for (a message id of the workflow's), when it is one. */
  questionId?: string;
}

/** A human's answer to a question whose wait had timed out, sent to the conversation that asked. */
export interface LateMessage {
  message: InboundMessage;
  seq: number;
  /** The question it quotes or reacts to. */
  questionId: string;
}

/**
 * Send requests to an agent's outbox (`amsflow.send` update, `amsflow.sendRequest` signal), split
 * by purpose, their outcomes, and the receipts the agent forwards to the workflow that sent.
 *
 * Each purpose declares the other purposes' fields as absent (`?: never`): reading `req.waitId`
 * off any request compiles (it is `undefined` where it cannot be), while building a request that
 * mixes purposes does not. `sendRequestSchema` (message-schemas.ts) checks the same at runtime.
 */

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

/**
 * The routing proof: that a message reached a conversation from its agent, for a conversation
 * that must act on nothing else (an approval: only the human's own answer decides it). Anyone who
 * can signal workflows in the namespace (the Temporal CLI or UI, any SDK client) can send a
 * conversation an `amsflow.inbound` that looks like the agent's; none can make the agent route a
 * message the human did not write, since the agent routes only what its own polls read. So the
 * agent keeps a bounded record of its deliveries (the router's), answers the `amsflow.routedTo`
 * query from it, and the conversation asks it (an activity: workflow code cannot query) before it
 * acts on a message. The record keeps a message's gist, not its body: a forged signal that reuses
 * a real message's id with other words does not match it.
 */

/** What the agent records of a delivery. */
export interface RoutingProof {
  /** The workflow it was routed to. */
  workflowId: string;
  /** The wait it was routed to, when the wait had an id. */
  waitId?: number;
  /** {@link gistOf} the message as the agent routed it. */
  gist: string;
}

/** Characters of each part of a message its gist keeps (its words: an answer, not a body). */
const GIST_CHARS = 64;

/**
 * What identifies a message's content for the proof (pure): who wrote it when, its type, what it
 * quotes and the start of its words, enough to tell a real "yes" from a forged one.
 */
export function gistOf(message: InboundMessage): string {
  const m = message as InboundMessage &
    Record<string, { body?: unknown; caption?: unknown; emoji?: unknown }>;
  const part = m[message.type];
  const words = part?.body ?? part?.caption ?? part?.emoji ?? '';
  // Every part bounded: the agent carries 100 of them across continue-as-new.
  const part_ = (v: unknown) => (typeof v === 'string' ? v.slice(0, GIST_CHARS) : null);
  return JSON.stringify([
    part_(message.from),
    part_(message.timestamp),
    part_(message.type),
    part_(message.context?.id),
    part_(words),
  ]);
}

/** The routing activities (`createRoutingActivities`), on the workflow task queue. */
export interface RoutingActivities {
  /**
   * Agent `agentKey`'s record of its delivery of message `messageId` to the calling workflow, or
   * null when it routed that message elsewhere or never (a forged `amsflow.inbound`).
   */
  amsflowRoutedByAgent(agentKey: string, messageId: string): Promise<RoutingProof | null>;
}

/**
 * How a bare answer ("Yes 👍🏽") is keyed: the approval workflow registers its answer words by this
 * key and the agent workflow compares a message's text by it, so both sides use this one rule.
 */

/** The key a bare answer is compared on: trimmed, lower case, emoji skin tones removed. */
export function answerWord(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\u{1F3FB}-\u{1F3FF}]/gu, '')
    .replace(/\uFE0F/g, '');
}

/**
 * The service's wire types that cross amsflow's boundaries (handler inputs, routed messages,
 * send requests), by type only from the zod schemas of `messaging/`: workflow code must not
 * load undici or zod, and protocol/ may import messaging/ by type only.
 */

export type {
  Contact,
  InboundMessage,
  Misfit,
  NotUnderstood,
  Status,
  TruncatedMessage,
  Truncation,
  UnreadableMessage,
} from '../messaging/schemas';
export type { Limits } from '../messaging/limits';

/** A message to send: the wire body without `to` (the agent fills in its recipient). */
export type OutboundMessage = Omit<OutgoingMessage, 'to'>;
