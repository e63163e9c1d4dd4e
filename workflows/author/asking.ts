/**
 * The throwing waits: `ask`, `waitForMessage`, `waitForReceipt`. Each resolves to what it waited
 * for and fails the same way when it cannot: `WaitTimeout` after its timeout, and (`ask`,
 * `waitForMessage`) `ConversationCancelled` once the conversation was cancelled. For a result
 * instead of a failure, use `firstOf` or `prompt`.
 */
import { condition } from '@temporalio/workflow';
import { checkAsk, checkWait, checkWaitForReceipt } from './api-checks';
import { textMessage } from './builders';
import { current } from './conversation-state';
import { sendQuestion, type SendOptions } from './sending';
import type { InboundMessage, OutboundMessage, Receipt } from '../../protocol/conversations';
import {
  cancelledFailure,
  deadlineOf,
  tellCancelled,
  timeoutFailure,
  waitFor,
  type WaitOutcome,
} from './waiting';
import type { Duration } from '@temporalio/common';

export interface WaitOptions {
  /** Give up after this long (e.g. '10 minutes'): the wait fails with `WaitTimeout`. Default: never. */
  timeout?: Duration;
}

export interface AskOptions extends WaitOptions, Omit<SendOptions, 'confirm'> {
  /** Quote this message with the question. */
  replyTo?: InboundMessage | string;
}

function answerOf(outcome: WaitOutcome, what: string, options: WaitOptions): InboundMessage {
  switch (outcome.kind) {
    case 'message':
    case 'reply':
    case 'reaction':
      return outcome.message;
    case 'cancel':
      throw cancelledFailure(outcome.by);
    default:
      throw timeoutFailure(what, options.timeout);
  }
}

/**
 * Sends `question` and waits for the answer: a message quoting (or a reaction to) the question,
 * or else the human's next message. Cancel words and side commands of the conversation apply.
 * Fails with `WaitTimeout` after the timeout, `ConversationCancelled` after a cancel.
 */
export async function ask(
  question: string | OutboundMessage,
  options: AskOptions = {},
): Promise<InboundMessage> {
  checkAsk(question, options as Record<string, unknown>);
  const conv = current();
  if (conv.cancelled) {
    await tellCancelled(conv);
    throw cancelledFailure(conv.cancelled);
  }
  const message =
    typeof question === 'string' ? textMessage(question, { replyTo: options.replyTo }) : question;
  const waitId = conv.beginWait();
  let questionRequest: string;
  try {
    questionRequest = await sendQuestion(message, { ...options, waitId });
  } catch (err) {
    conv.endWait();
    throw err;
  }
  const plan = {
    questionRequest,
    next: true,
    reactions: true,
    deadline: deadlineOf(options.timeout),
    cancelWords: conv.settings.cancelWords,
    signals: [],
  };
  return answerOf(await waitFor(conv, plan, true), 'ask', options);
}

/**
 * Waits for the human's next message (not a reaction). Fails with `WaitTimeout` after the
 * timeout, `ConversationCancelled` after a cancel.
 */
export async function waitForMessage(options: WaitOptions = {}): Promise<InboundMessage> {
  checkWait('waitForMessage', options as Record<string, unknown>);
  const conv = current();
  const plan = {
    next: true,
    reactions: false,
    deadline: deadlineOf(options.timeout),
    cancelWords: conv.settings.cancelWords,
    signals: [],
  };
  return answerOf(await waitFor(conv, plan, false), 'waitForMessage', options);
}

/**
 * Waits until the message reaches `status` ('sent', 'delivered' or 'read'; a later status also
 * counts) or fails ('failed' receipt), and returns that receipt: check `receipt.status`. Fails
 * with `WaitTimeout` after the timeout. `messageId` is a message this conversation sent (a send
 * with `confirm: true` resolves to it).
 */
export async function waitForReceipt(
  messageId: string,
  status: 'sent' | 'delivered' | 'read',
  options: WaitOptions = {},
): Promise<Receipt> {
  checkWaitForReceipt(messageId, status, options as Record<string, unknown>);
  const conv = current();
  // The agent forwards a message's receipts only to a conversation that watches them.
  await conv.channel.hand({ op: 'receipts', messageId });
  const reached = () => conv.receiptReached(messageId, status);
  const ok =
    options.timeout === undefined
      ? (await condition(reached), true)
      : await condition(reached, options.timeout);
  if (!ok) throw timeoutFailure(`waitForReceipt(${status})`, options.timeout);
  return conv.receipt(messageId)!;
}
