/**
 * What bot authors call from workflow code: send, reply, ask, wait for the next message or a
 * receipt, show typing. Every send goes through the agent workflow's outbox as a signal with a
 * deterministic request id; the outcome and the receipts come back as signals.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { ASK_TIMEOUT } from '../protocol/failures';
import { agentWorkflowId } from '../protocol/ids';
import { lateSignal, releaseSignal, sendRequestSignal, typingSignal, waitSignal } from '../protocol/messages';
import { textMessage, type TextMessageOptions } from './builders';
import { current, hasConversation, open, rank, type Conversation } from './conversation-state';
import type { HandlerInput, InboundMessage, OutboundMessage, Receipt } from './types';

import { EXPIRED_QUESTION_TEXT } from './text';

export { EXPIRED_QUESTION_TEXT, isText, textOf } from './text';

/**
 * What a conversation does with a late answer: a message quoting (or reacting to) one of its
 * questions after that question's wait timed out. It is never handed to a new handler.
 */
export type LateHandler = (message: InboundMessage, questionId: string) => Promise<void>;

export interface ConversationOptions {
  /**
   * Called with each late answer while this workflow runs. Default: answer it, quoting, with
   * "That question has expired." (reactions get no answer). After the workflow has ended, the
   * agent gives that answer itself.
   */
  onLate?: LateHandler;
}

function handleLate(options: ConversationOptions): void {
  setHandler(lateSignal, async ({ message, questionId }) => {
    if (options.onLate) await options.onLate(message, questionId);
    else if (message.type !== 'reaction') await reply(message, EXPIRED_QUESTION_TEXT);
  });
}

/** Lets a workflow that is not a message handler (a reminder, an approval) talk as `agentKey`. */
export function useAgent(agentKey: string, options: ConversationOptions = {}): void {
  if (hasConversation()) return;
  open(agentWorkflowId(agentKey));
  handleLate(options);
}

/** What a handler knows besides its message. */
export interface HandlerContext<Config = unknown> {
  /** The operator's name for the agent. */
  agentKey: string;
  /** The bot's configuration (`AMSFLOW_BOT_CONFIG` on the worker), undefined when none was given. */
  config: Config;
  /** Arrival number of the message in this agent (1, 2, ...). */
  seq: number;
  /**
   * Gives up this handler's place in the first-reply order: later messages' replies may go
   * before its first one. Call it before sleeping or waiting on anything but the human (waiting
   * for the human releases by itself).
   */
  release(): Promise<void>;
}

/** A message handler: what the agent workflow starts for each inbound message nobody waits for. */
export type MessageHandler<Config = unknown> = (
  message: InboundMessage,
  ctx: HandlerContext<Config>,
) => Promise<void>;

/**
 * Turns a function into a handler workflow. Export it under the agent's handler workflow type
 * (default `onMessage`): `export const onMessage = handleMessages(async (msg) => { ... })`.
 * `options.onLate` handles answers to this conversation's questions that arrive after their
 * wait timed out (default: "That question has expired.").
 */
export function handleMessages<Config = unknown>(
  handler: MessageHandler<Config>,
  options: ConversationOptions = {},
): (input: HandlerInput) => Promise<void> {
  return async (input: HandlerInput): Promise<void> => {
    open(input.agentWorkflowId, input.seq);
    handleLate(options);
    const ctx: HandlerContext<Config> = {
      agentKey: input.agentKey,
      config: input.config as Config,
      seq: input.seq,
      release,
    };
    try {
      await handler(input.message, ctx);
    } finally {
      await release();
    }
    // A late answer being handled when the handler returns is finished first.
    await condition(allHandlersFinished);
  };
}

/** Lets later messages' replies go before this handler's first reply (it has none now). */
async function release(): Promise<void> {
  const conv = current();
  if (conv.seq === undefined) return;
  const seq = conv.seq;
  conv.seq = undefined;
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(releaseSignal, { seq });
}

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

async function request(
  message: OutboundMessage,
  options: SendOptions & { waitId?: number },
): Promise<SentMessage> {
  const conv = current();
  const info = workflowInfo();
  // Read from the start event: the same on every replay, different for each run of the chain.
  const run = `${info.firstExecutionRunId}/${info.continuedFromExecutionRunId ?? '-'}`;
  const requestId = `${info.workflowId}/${run}/send/${++conv.sends}`;
  const handlerSeq = conv.seq;
  // The first request carries the handler's place in line; after it, no more holding back.
  conv.seq = undefined;
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(sendRequestSignal, {
    requestId,
    message,
    requester: info.workflowId,
    handlerSeq,
    retryAmbiguous: options.retryAmbiguous,
    reconcileAmbiguous: options.reconcileAmbiguous,
    ...(options.waitId === undefined ? {} : { expectReply: true, waitId: options.waitId }),
  });
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

/**
 * Sends any message through the agent's outbox and resolves to its message id. Fails with an
 * `ApplicationFailure` whose `type` is a {@link SendFailureType}: `AmbiguousSend` (it may have
 * been sent; not re-sent), `SendInvalid`, `SendUnauthorized`, `SendRejected`, `NoRecipient`.
 */
export async function send(message: OutboundMessage, options: SendOptions = {}): Promise<SentMessage> {
  return request(message, options);
}

export interface TextOptions extends SendOptions, TextMessageOptions {}

/** Sends a text message. */
export async function sendText(body: string, options: TextOptions = {}): Promise<SentMessage> {
  return request(textMessage(body, options), options);
}

/** Answers `message` with `text`, quoting it. */
export async function reply(
  message: InboundMessage,
  body: string,
  options: SendOptions = {},
): Promise<SentMessage> {
  return request(textMessage(body, { replyTo: message }), options);
}

export interface WaitOptions {
  /** Give up after this long (e.g. '10 minutes'). Default: wait forever. */
  timeout?: Duration;
}

/** Starts a new wait for the human; returns its id. */
function beginWait(conv: Conversation): number {
  conv.activeWait = ++conv.waits;
  return conv.activeWait;
}

/**
 * Waits for the message routed to the active wait. On timeout the wait ends here first, then the
 * agent is told: a message routed to it meanwhile is ignored here and handed back there, so
 * every message reaches exactly one place.
 */
async function nextInbox(conv: Conversation, options: WaitOptions): Promise<InboundMessage | undefined> {
  const arrived =
    options.timeout === undefined
      ? (await condition(() => conv.inbox.length > 0), true)
      : await condition(() => conv.inbox.length > 0, options.timeout);
  const waitId = conv.activeWait;
  conv.activeWait = undefined;
  // A message routed here in the same instant as the timeout still counts.
  if (arrived || conv.inbox.length > 0) return conv.inbox.shift()!.message;
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(waitSignal, {
    workflowId: workflowInfo().workflowId,
    wait: false,
    waitId,
  });
  return undefined;
}

/** Waits for the human's next message (not a reaction); `undefined` after the timeout. */
export async function waitForMessage(options: WaitOptions = {}): Promise<InboundMessage | undefined> {
  const conv = current();
  if (conv.inbox.length > 0) return conv.inbox.shift()!.message;
  await release();
  const waitId = beginWait(conv);
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(waitSignal, {
    workflowId: workflowInfo().workflowId,
    wait: true,
    waitId,
  });
  return nextInbox(conv, options);
}

export interface AskOptions extends WaitOptions, SendOptions {
  /** Quote this message with the question. */
  replyTo?: InboundMessage | string;
}

/**
 * Sends `question` and waits for the answer: a message quoting the question, or else the
 * human's next message. Fails with an `ApplicationFailure` of type `AskTimeout` after the timeout.
 */
export async function ask(
  question: string | OutboundMessage,
  options: AskOptions = {},
): Promise<InboundMessage> {
  const conv = current();
  const message =
    typeof question === 'string' ? textMessage(question, { replyTo: options.replyTo }) : question;
  const waitId = beginWait(conv);
  try {
    await request(message, { ...options, waitId });
  } catch (err) {
    conv.activeWait = undefined;
    throw err;
  }
  const answer = await nextInbox(conv, options);
  if (!answer) {
    throw ApplicationFailure.create({
      type: ASK_TIMEOUT,
      message: `No answer within ${String(options.timeout)}`,
      nonRetryable: true,
    });
  }
  return answer;
}

/**
 * Waits until the message reaches `status` ('sent', 'delivered' or 'read'; a later status also
 * counts) and returns the receipt, or `undefined` after the timeout or a 'failed' receipt.
 */
export async function waitForReceipt(
  messageId: string,
  status: 'sent' | 'delivered' | 'read',
  options: WaitOptions = {},
): Promise<Receipt | undefined> {
  const conv = current();
  const reached = () => {
    const receipt = conv.receipts.get(messageId);
    return receipt !== undefined && (rank(receipt.status) >= rank(status) || receipt.status === 'failed');
  };
  if (options.timeout === undefined) await condition(reached);
  else await condition(reached, options.timeout);
  const receipt = conv.receipts.get(messageId);
  return receipt && receipt.status !== 'failed' && rank(receipt.status) >= rank(status) ? receipt : undefined;
}

/** Shows the typing indicator on `message` (skipped when the typing budget is spent). */
export async function typing(message: InboundMessage): Promise<void> {
  const conv = current();
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(typingSignal, { messageId: message.id });
}
