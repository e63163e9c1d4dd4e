/**
 * How a wait fails, as the author API throws it: `WaitTimeout` after its timeout,
 * `ConversationCancelled` after a cancel, and a question's own send failure when the question
 * could not be sent (its wait then can never be answered). Each is non-retryable and typed.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { CONVERSATION_CANCELLED, WAIT_TIMEOUT } from '../../protocol/failures';
import type { Conversation } from './conversation-state';

/** The failure `ask`, `waitForMessage` and `waitForReceipt` throw when their timeout passes. */
export function timeoutFailure(what: string, timeout: Duration | undefined): ApplicationFailure {
  return ApplicationFailure.create({
    type: WAIT_TIMEOUT,
    message: `${what}: nothing within ${String(timeout)}`,
    nonRetryable: true,
  });
}

/** The failure `ask` and `waitForMessage` throw once the conversation was cancelled. */
export function cancelledFailure(by: 'human' | 'operator'): ApplicationFailure {
  return ApplicationFailure.create({
    type: CONVERSATION_CANCELLED,
    message: `The conversation was cancelled by the ${by}`,
    nonRetryable: true,
  });
}

/** True for the failure a timed-out `ask`, `waitForMessage` or `waitForReceipt` throws. */
export function isWaitTimeout(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === WAIT_TIMEOUT;
}

/** True for the failure `ask` and `waitForMessage` throw after a cancel. */
export function isCancelled(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === CONVERSATION_CANCELLED;
}

/** The failure of the question the wait is for, if its send failed (the agent told so). */
export function questionFailure(
  conv: Conversation,
  plan: { questionRequest?: string },
): ApplicationFailure | undefined {
  if (plan.questionRequest === undefined) return undefined;
  const outcome = conv.takeFailure(plan.questionRequest);
  if (!outcome) return undefined;
  return ApplicationFailure.create({
    type: outcome.type,
    message: outcome.message,
    nonRetryable: true,
    details: [outcome],
  });
}
