/**
 * The shape check of a send request, at the outbox's edge. Pure: the `send` update's validator
 * rejects a bad request before it enters history, and a bad `sendRequest` signal is answered
 * with a `SendInvalid` outcome instead of being dropped.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { SendOutcome, SendRequest } from '../../protocol';
import { AGENT_MOVING } from '../../protocol/failures';

/**
 * The refusal of a send update while the run drains before continue-as-new (`AGENT_MOVING`):
 * the caller sends again, to the next run.
 */
export function refuseWhileMoving(draining: boolean): void {
  if (!draining) return;
  throw ApplicationFailure.create({
    type: AGENT_MOVING,
    message: 'the agent is moving to its next run (continue-as-new): send again',
    nonRetryable: true,
  });
}

/** Why `req` is not a usable send request, or undefined when it is. */
export function sendRequestProblem(req: unknown): string | undefined {
  if (typeof req !== 'object' || req === null) return 'a send request must be an object';
  const r = req as Partial<SendRequest>;
  if (typeof r.requestId !== 'string' || r.requestId.length === 0)
    return 'a send request needs a non-empty requestId';
  if (typeof r.message !== 'object' || r.message === null || typeof r.message.type !== 'string') {
    return 'a send request needs a message with a type';
  }
  if (r.requester !== undefined && typeof r.requester !== 'string') return 'requester must be a workflow id';
  if (r.onlyWhileWaiting !== undefined && (typeof r.onlyWhileWaiting !== 'number' || !r.requester)) {
    return 'onlyWhileWaiting must be a wait id of the requester';
  }
  return undefined;
}

/** The outcome a malformed request gets: it was not sent. */
export function invalidRequestOutcome(problem: string): SendOutcome {
  return {
    ok: false,
    type: 'SendInvalid',
    message: `Malformed send request: ${problem}; nothing was sent.`,
    attempts: 0,
  };
}
