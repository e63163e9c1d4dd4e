/**
 * Where send requests enter the outbox: the `send` update (its caller waits for the outcome)
 * and the `sendRequest` signal (its requester gets the outcome as a signal). A request id seen
 * before gets the outcome it had, never a second send; a malformed signal is answered with
 * `SendInvalid` when it names a requester, and dropped (logged, counted) otherwise.
 */
import { condition } from '@temporalio/workflow';
import { sendRequestSignal } from '../../protocol/messages';
import { sendRequestSchema } from '../../protocol/message-schemas';
import { dropSignal, signalProblem } from '../author/checked-handlers';
import { reportOutbox } from '../author/metrics';
import type { SendOutcome, SendRequest } from '../../protocol';
import type { AgentRuntime } from './runtime';
import { notifyRequester } from './send-loop';
import { invalidRequestOutcome, sendRequestProblem } from './send-request';

export class SendIntake {
  constructor(private readonly rt: AgentRuntime) {}

  /** The `send` update (already validated): queues `req` and waits for its outcome. */
  async update(req: SendRequest): Promise<SendOutcome> {
    const { outbox } = this.rt;
    this.enqueue(req, 'update');
    await condition(() => outbox.outcomes.has(req.requestId));
    return outbox.outcomes.get(req.requestId)!;
  }

  /** The `sendRequest` signal: any payload, checked here. */
  signal(req: unknown): void {
    const { rt } = this;
    const problem = sendRequestProblem(req) ?? signalProblem(sendRequestSchema, req);
    if (problem) {
      // Nobody to answer without a requester; with one, it must not wait forever.
      const { requester, requestId } = (
        typeof req === 'object' && req !== null ? req : {}
      ) as Partial<SendRequest>;
      if (typeof requester === 'string' && typeof requestId === 'string') {
        notifyRequester(rt.signals, requester, requestId, invalidRequestOutcome(problem));
      }
      rt.noteError('send', new Error(problem));
      dropSignal(sendRequestSignal.name, problem);
      return;
    }
    const sent = req as SendRequest;
    const known = rt.outbox.outcomes.get(sent.requestId);
    if (known && sent.requester) notifyRequester(rt.signals, sent.requester, sent.requestId, known);
    else this.enqueue(sent, 'signal');
  }

  private enqueue(req: SendRequest, via: 'update' | 'signal'): void {
    const { rt } = this;
    const taken = rt.outbox.enqueue(req, via, rt.tally.lastSeq);
    reportOutbox(rt);
    // A handler's first request ends its hold on later handlers' first replies.
    if (taken !== 'duplicate' && req.handlerSeq !== undefined) rt.order.release(req.handlerSeq);
    if (typeof taken === 'object' && via === 'signal' && req.requester) {
      notifyRequester(rt.signals, req.requester, req.requestId, taken.refused);
    }
  }
}
