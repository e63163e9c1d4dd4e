/**
 * Sending from a conversation: every send goes to the agent workflow's outbox as an operation
 * of the conversation's channel (channel.ts), with a deterministic request id. A send resolves
 * once the agent has the request (a handler that ends without waiting hands its last sends over
 * with its result): the outbox sends it once, in order, paced, and reports a failure to the
 * operators. `{ confirm: true }` waits for the service's answer instead: it resolves to the
 * message id and throws the send's typed failure.
 */
import { ApplicationFailure, condition, workflowInfo } from '@temporalio/workflow';
import { checkReply, checkSend, checkText, checkTyping } from './api-checks';
import { textMessage, type TextMessageOptions } from './builders';
import { current, type Conversation } from './conversation-state';
import type {
  InboundMessage,
  OutboundMessage,
  SendRequest,
  WorkflowSend,
} from '../../protocol/conversations';

export interface SendOptions {
  /**
   * Re-send after an ambiguous outcome (500, dropped connection, read timeout, worker lost
   * mid-send). The human may then get the message twice. Default false.
   */
  retryAmbiguous?: boolean;
  /**
   * After an ambiguous outcome, let the agent decide from the service's receipts whether the
   * message was accepted (the send then succeeds with its id) or not (it is sent again, which
   * cannot duplicate it). Assumes this agent's workflow is the token's only sender and that the
   * service records a 'sent' receipt within `reconcileSettleMs` of accepting. Default false.
   */
  reconcileAmbiguous?: boolean;
  /**
   * Wait for the service's answer: resolve to the message id (to quote it, or wait for its
   * receipts), or throw the send's failure (`AmbiguousSend`, `SendRejected`, ...). Costs a round
   * trip to the agent workflow. Default false: resolve once the agent has the request, and leave
   * a failure to the agent, which logs it, counts it and shows it in `amsflow state`.
   */
  confirm?: boolean;
}

/** A message the service accepted (a send with `confirm: true`). */
export interface SentMessage {
  messageId: string;
}

/** What the conversation layer adds to a send: the wait it opens or serves. */
export interface RequestExtras {
  /** The send is a question: after it is sent, the agent routes the answer to this wait. */
  waitId?: number;
  /** The send is a nudge of this wait: dropped (`NotWaiting`) once the wait was answered. */
  onlyWhileWaiting?: number;
  /** With `waitId`: whether the human's next message also answers (default true). */
  waitNextToo?: boolean;
  /** With `waitId`: bare answer words that answer too, and the question's label for "which one?". */
  answers?: { words: string[]; label: string; askedBy?: string };
  /** With `onlyWhileWaiting`: quote the question that wait is for (the agent knows its id). */
  quoteQuestion?: boolean;
}

/** With a `waitId`: a question, whose answer the agent routes to this workflow's wait. */
function question(base: WorkflowSend, options: RequestExtras): SendRequest | undefined {
  if (options.waitId === undefined) return undefined;
  return {
    ...base,
    expectReply: true,
    waitId: options.waitId,
    ...(options.waitNextToo === undefined ? {} : { waitNextToo: options.waitNextToo }),
    ...(options.answers ? { answerWords: options.answers.words, answerLabel: options.answers.label } : {}),
    ...(options.answers?.askedBy ? { askedBy: options.answers.askedBy } : {}),
  };
}

/** With `onlyWhileWaiting`: a nudge, dropped once that wait was answered. */
function nudge(base: WorkflowSend, options: RequestExtras): SendRequest | undefined {
  if (options.onlyWhileWaiting === undefined) return undefined;
  return {
    ...base,
    onlyWhileWaiting: options.onlyWhileWaiting,
    ...(options.quoteQuestion ? { quoteQuestion: true as const } : {}),
  };
}

/** Builds the send request for `message`; `notify` says whether its outcome comes back. */
function build(
  conv: Conversation,
  message: OutboundMessage,
  options: SendOptions & RequestExtras,
  notify: SendRequest['notify'],
): SendRequest {
  const info = workflowInfo();
  // Read from the start event: the same on every replay, different for each run of the chain.
  const run = `${info.firstExecutionRunId}/${info.continuedFromExecutionRunId ?? '-'}`;
  const requestId = `${info.workflowId}/${run}/send/${conv.nextSend()}`;
  // A question's text, for side commands that restate it while its answer is awaited.
  if (options.waitId !== undefined) {
    conv.setQuestion(message.type === 'text' ? message.text?.body : undefined);
  }
  // The first request carries the handler's place in line; after it, no more holding back.
  const handlerSeq = conv.takeTurn();
  const base: WorkflowSend = {
    requestId,
    message,
    requester: info.workflowId,
    ...(handlerSeq === undefined ? {} : { handlerSeq }),
    ...(options.retryAmbiguous === undefined ? {} : { retryAmbiguous: options.retryAmbiguous }),
    ...(options.reconcileAmbiguous === undefined ? {} : { reconcileAmbiguous: options.reconcileAmbiguous }),
    ...(notify ? { notify } : {}),
    // A handler answers the human, and so does any workflow answering a message routed to it
    // (it holds that message's place in line); otherwise a workflow speaks of its own accord.
    ...(conv.channel.answers || handlerSeq !== undefined ? {} : { lane: 'background' as const }),
  };
  return question(base, options) ?? nudge(base, options) ?? base;
}

/** Sends and waits for the outcome; a failed send throws its typed `ApplicationFailure`. */
export async function request(
  message: OutboundMessage,
  options: SendOptions & RequestExtras = {},
): Promise<SentMessage> {
  const conv = current();
  const req = build(conv, message, options, 'outcome');
  await conv.channel.hand({ op: 'send', request: req });
  await condition(() => conv.hasOutcome(req.requestId));
  const outcome = conv.takeOutcome(req.requestId)!;
  if (outcome.ok) return { messageId: outcome.messageId };
  throw ApplicationFailure.create({
    type: outcome.type,
    message: outcome.message,
    nonRetryable: true,
    details: [outcome],
  });
}

/**
 * Hands a question (a send with a `waitId`) to the outbox; returns its request id. Its outcome
 * comes back only if it failed (the wait then ends with that failure, see waiting.ts): on success
 * the answer brings the question's id along.
 */
export async function sendQuestion(
  message: OutboundMessage,
  options: SendOptions & RequestExtras & { waitId: number },
): Promise<string> {
  const conv = current();
  const req = build(conv, message, options, 'failure');
  await conv.channel.hand({ op: 'send', request: req });
  return req.requestId;
}

/** Hands a send to the outbox; resolves once the agent has it. Its outcome is the agent's. */
export async function enqueue(
  message: OutboundMessage,
  options: SendOptions & RequestExtras = {},
): Promise<void> {
  const conv = current();
  await conv.channel.hand({ op: 'send', request: build(conv, message, options, undefined) });
}

/** A send: confirmed (the outcome) or handed to the outbox, as `options.confirm` says. */
async function dispatch(message: OutboundMessage, options: SendOptions): Promise<SentMessage | undefined> {
  const { confirm, ...rest } = options;
  if (confirm) return request(message, rest);
  await enqueue(message, rest);
  return undefined;
}

/**
 * Sends any message through the agent's outbox. Resolves once the agent has it; with
 * `{ confirm: true }`, to its message id once the service accepted it, or fails with an
 * `ApplicationFailure` whose `type` is a {@link SendFailureType}: `AmbiguousSend` (it may have
 * been sent; not re-sent), `SendInvalid`, `SendUnauthorized`, `SendRejected`, `NoRecipient`,
 * `OutboxFull`.
 */
export function send(
  message: OutboundMessage,
  options: SendOptions & { confirm: true },
): Promise<SentMessage>;
export function send(message: OutboundMessage, options?: SendOptions): Promise<void>;
export async function send(message: OutboundMessage, options: SendOptions = {}): Promise<SentMessage | void> {
  checkSend(message, options as Record<string, unknown>);
  return dispatch(message, options);
}

export interface TextOptions extends SendOptions, TextMessageOptions {}

/** Sends a text message (see {@link send} for when it resolves). */
export function sendText(body: string, options: TextOptions & { confirm: true }): Promise<SentMessage>;
export function sendText(body: string, options?: TextOptions): Promise<void>;
export async function sendText(body: string, options: TextOptions = {}): Promise<SentMessage | void> {
  checkText('sendText', body, options as Record<string, unknown>, true);
  const { replyTo, previewUrl, ...sendOptions } = options;
  return dispatch(textMessage(body, { replyTo, previewUrl }), sendOptions);
}

/** Answers `message` with `text`, quoting it (see {@link send} for when it resolves). */
export function reply(
  message: InboundMessage,
  body: string,
  options: SendOptions & { confirm: true },
): Promise<SentMessage>;
export function reply(message: InboundMessage, body: string, options?: SendOptions): Promise<void>;
export async function reply(
  message: InboundMessage,
  body: string,
  options: SendOptions = {},
): Promise<SentMessage | void> {
  checkReply(message, body, options as Record<string, unknown>);
  return dispatch(textMessage(body, { replyTo: message }), options);
}

/** Shows the typing indicator on `message` (skipped when the typing budget is spent). */
export async function typing(message: InboundMessage): Promise<void> {
  checkTyping(message);
  await current().channel.hand({ op: 'typing', messageId: message.id });
}

/** Lets later messages' replies go before this handler's first reply (it has none now). */
export async function release(): Promise<void> {
  const conv = current();
  const seq = conv.takeTurn();
  if (seq === undefined) return;
  await conv.channel.hand({ op: 'release', seq });
}
