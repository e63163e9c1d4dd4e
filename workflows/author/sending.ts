/**
 * Sending from a conversation: every send goes through the agent workflow's outbox as a signal
 * with a deterministic request id; the outcome comes back as a signal.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { releaseSignal, sendRequestSignal, typingSignal } from '../../protocol/messages';
import { checkReply, checkSend, checkText, checkTyping } from './api-checks';
import { textMessage, type TextMessageOptions } from './builders';
import { current, type Conversation } from './conversation-state';
import type { InboundMessage, OutboundMessage, SendRequest, WorkflowSend } from '../../protocol';

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
}

/** A message the outbox sent. */
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
  answers?: { words: string[]; label: string };
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
  };
}

/** With `onlyWhileWaiting`: a nudge, dropped once that wait was answered. */
function nudge(base: WorkflowSend, options: RequestExtras): SendRequest | undefined {
  return options.onlyWhileWaiting === undefined
    ? undefined
    : { ...base, onlyWhileWaiting: options.onlyWhileWaiting };
}

/** Issues a send request to the agent's outbox; returns its id. */
async function issue(
  conv: Conversation,
  message: OutboundMessage,
  options: SendOptions & RequestExtras,
): Promise<string> {
  const info = workflowInfo();
  // Read from the start event: the same on every replay, different for each run of the chain.
  const run = `${info.firstExecutionRunId}/${info.continuedFromExecutionRunId ?? '-'}`;
  const requestId = `${info.workflowId}/${run}/send/${++conv.sends}`;
  // A question's text, for side commands that restate it while its answer is awaited.
  if (options.waitId !== undefined) conv.question = message.type === 'text' ? message.text?.body : undefined;
  const handlerSeq = conv.seq;
  // The first request carries the handler's place in line; after it, no more holding back.
  conv.seq = undefined;
  const base: WorkflowSend = {
    requestId,
    message,
    requester: info.workflowId,
    handlerSeq,
    retryAmbiguous: options.retryAmbiguous,
    reconcileAmbiguous: options.reconcileAmbiguous,
  };
  const req: SendRequest = question(base, options) ?? nudge(base, options) ?? base;
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(sendRequestSignal, req);
  return requestId;
}

/** Sends and waits for the outcome; a failed send throws its typed `ApplicationFailure`. */
export async function request(
  message: OutboundMessage,
  options: SendOptions & RequestExtras = {},
): Promise<SentMessage> {
  const conv = current();
  const requestId = await issue(conv, message, options);
  await condition(() => conv.outcomes.has(requestId));
  const outcome = conv.outcomes.get(requestId)!;
  conv.outcomes.delete(requestId);
  if (outcome.ok) return { messageId: outcome.messageId };
  throw ApplicationFailure.create({
    type: outcome.type,
    message: outcome.message,
    nonRetryable: true,
    details: [outcome],
  });
}

/** Sends without waiting for the outcome, which is dropped when it comes (nudges). */
export async function requestDetached(
  message: OutboundMessage,
  options: SendOptions & RequestExtras,
): Promise<void> {
  const conv = current();
  const requestId = await issue(conv, message, options);
  conv.detached.add(requestId);
}

/**
 * Sends any message through the agent's outbox and resolves to its message id. Fails with an
 * `ApplicationFailure` whose `type` is a {@link SendFailureType}: `AmbiguousSend` (it may have
 * been sent; not re-sent), `SendInvalid`, `SendUnauthorized`, `SendRejected`, `NoRecipient`,
 * `OutboxFull`.
 */
export async function send(message: OutboundMessage, options: SendOptions = {}): Promise<SentMessage> {
  checkSend(message, options as Record<string, unknown>);
  return request(message, options);
}

export interface TextOptions extends SendOptions, TextMessageOptions {}

/** Sends a text message. */
export async function sendText(body: string, options: TextOptions = {}): Promise<SentMessage> {
  checkText('sendText', body, options as Record<string, unknown>, true);
  return request(textMessage(body, { replyTo: options.replyTo, previewUrl: options.previewUrl }), options);
}

/** Answers `message` with `text`, quoting it. */
export async function reply(
  message: InboundMessage,
  body: string,
  options: SendOptions = {},
): Promise<SentMessage> {
  checkReply(message, body, options as Record<string, unknown>);
  return request(textMessage(body, { replyTo: message }), options);
}

/** Shows the typing indicator on `message` (skipped when the typing budget is spent). */
export async function typing(message: InboundMessage): Promise<void> {
  checkTyping(message);
  const conv = current();
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(typingSignal, { messageId: message.id });
}

/** Lets later messages' replies go before this handler's first reply (it has none now). */
export async function release(): Promise<void> {
  const conv = current();
  if (conv.seq === undefined) return;
  const seq = conv.seq;
  conv.seq = undefined;
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(releaseSignal, { seq });
}
