/**
 * What a requesting workflow hears of its send request: the outcome, only when it asked for it
 * (`SendRequest.notify`), as an `amsflow.sendResult` signal the agent does not wait for.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { sendResultSignal } from '../../protocol/messages';
import type { SendOutcome, SendRequest } from '../../protocol';
import type { SignalTracker } from './signal-tracker';

/** Whether the requester of `req` is told `outcome`. Pure. */
export function wantsToHear(req: Pick<SendRequest, 'notify'>, outcome: SendOutcome): boolean {
  return req.notify === 'outcome' || (req.notify === 'failure' && !outcome.ok);
}

/** Tells `requester` the outcome of its request `requestId`. */
export function notifyRequester(
  signals: SignalTracker,
  requester: string,
  requestId: string,
  outcome: SendOutcome,
): void {
  signals.track(getExternalWorkflowHandle(requester).signal(sendResultSignal, { requestId, outcome }));
}
