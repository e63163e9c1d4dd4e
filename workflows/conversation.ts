/**
 * What bot authors call from workflow code: send, reply, ask, wait for the next message or a
 * receipt, show typing. Every send goes through the agent workflow's outbox as a signal with a
 * deterministic request id; the outcome and the receipts come back as signals.
 */
import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { agentWorkflowId } from './ids';
import { textMessage, type TextMessageOptions } from './builders';
import {
  inboundSignal,
  receiptSignal,
  releaseSignal,
  sendRequestSignal,
  sendResultSignal,
  typingSignal,
  waitSignal,
} from './messages';
import type {
  HandlerInput,
  InboundMessage,
  OutboundMessage,
  Receipt,
  RoutedMessage,
  SendOutcome,
} from './types';

/** Per-workflow conversation state. Module state is isolated per workflow execution by the SDK. */
interface Conversation {
  agentWorkflowId: string;
  /** Set in message handlers until their first reply or wait: orders first replies by arrival. */
  seq?: number;
  sends: number;
  inbox: RoutedMessage[];
  outcomes: Map<string, SendOutcome>;
  receipts: Map<string, Receipt>;
}

let conversation: Conversation | undefined;

function current(): Conversation {
  if (!conversation) {
    throw ApplicationFailure.nonRetryable(
      'No agent in this workflow: write handlers with handleMessages(), or call useAgent(agentKey) first',
      'NoAgentContext',
    );
  }
  return conversation;
}

function open(agentWfId: string, seq?: number): Conversation {
  conversation = {
    agentWorkflowId: agentWfId,
    seq,
    sends: 0,
    inbox: [],
    outcomes: new Map(),
    receipts: new Map(),
  };
  const conv = conversation;
  setHandler(sendResultSignal, ({ requestId, outcome }) => {
    conv.outcomes.set(requestId, outcome);
  });
  setHandler(inboundSignal, (routed) => {
    conv.inbox.push(routed);
  });
  setHandler(receiptSignal, (receipt) => {
    const known = conv.receipts.get(receipt.messageId);
    // Receipts can arrive out of order; keep the furthest state.
    if (!known || rank(receipt.status) >= rank(known.status)) conv.receipts.set(receipt.messageId, receipt);
  });
  return conv;
}

const STATUS_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
function rank(status: string): number {
  return STATUS_RANK[status] ?? 0;
}

/** Lets a workflow that is not a message handler (a reminder, an approval) talk as `agentKey`. */
export function useAgent(agentKey: string): void {
  if (!conversation) open(agentWorkflowId(agentKey));
}

/** A message handler: what the agent workflow starts for each inbound message nobody waits for. */
export type MessageHandler = (message: InboundMessage) => Promise<void>;

/**
 * Turns a function into a handler workflow. Export it under the agent's handler workflow type
 * (default `onMessage`): `export const onMessage = handleMessages(async (msg) => { ... })`.
 */
export function handleMessages(handler: MessageHandler): (input: HandlerInput) => Promise<void> {
  return async (input: HandlerInput): Promise<void> => {
    open(input.agentWorkflowId, input.seq);
    try {
      await handler(input.message);
    } finally {
      await release();
    }
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
  options: SendOptions & { expectReply?: boolean },
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
    expectReply: options.expectReply,
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

async function nextInbox(conv: Conversation, options: WaitOptions): Promise<InboundMessage | undefined> {
  const arrived =
    options.timeout === undefined
      ? (await condition(() => conv.inbox.length > 0), true)
      : await condition(() => conv.inbox.length > 0, options.timeout);
  if (!arrived) {
    await getExternalWorkflowHandle(conv.agentWorkflowId).signal(waitSignal, {
      workflowId: workflowInfo().workflowId,
      wait: false,
    });
    // A message routed here just before the cancel still counts.
    if (conv.inbox.length === 0) return undefined;
  }
  return conv.inbox.shift()!.message;
}

/** Waits for the human's next message (not a reaction); `undefined` after the timeout. */
export async function waitForMessage(options: WaitOptions = {}): Promise<InboundMessage | undefined> {
  const conv = current();
  if (conv.inbox.length > 0) return conv.inbox.shift()!.message;
  await release();
  await getExternalWorkflowHandle(conv.agentWorkflowId).signal(waitSignal, {
    workflowId: workflowInfo().workflowId,
    wait: true,
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
  await request(message, { ...options, expectReply: true });
  const answer = await nextInbox(conv, options);
  if (!answer) {
    throw ApplicationFailure.create({
      type: 'AskTimeout',
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

/** The text of a text message, else `undefined`. */
export function textOf(message: InboundMessage): string | undefined {
  return message.type === 'text' ? message.text?.body : undefined;
}

/** True for a text message, optionally one whose text matches `pattern`. */
export function isText(message: InboundMessage, pattern?: RegExp): boolean {
  const text = textOf(message);
  return text !== undefined && (pattern === undefined || pattern.test(text));
}
