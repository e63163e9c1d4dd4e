/**
 * Where send requests enter the outbox: the `send` update (its caller waits for the outcome) and
 * a conversation's send operations (ops-intake.ts; the requester hears the outcome only when it
 * asked, `notify`). A request id seen before gets the outcome it had, never a second send.
 */
import { condition } from '@temporalio/workflow';
import { reportOutbox } from '../author/metrics';
import type { SendOutcome, SendRequest } from '../../protocol';
import type { AgentRuntime } from './runtime';
import { notifyRequester, wantsToHear } from './requester';

export class SendIntake {
  constructor(private readonly rt: AgentRuntime) {}

  /** The `send` update (already validated): queues `req` and waits for its outcome. */
  async update(req: SendRequest): Promise<SendOutcome> {
    const { outbox } = this.rt;
    this.enqueue(req, 'update');
    await condition(() => outbox.outcomes.has(req.requestId));
    return outbox.outcomes.get(req.requestId)!;
  }

  /** Queues `req` once (a known id is answered with its outcome, if its requester asked for it). */
  enqueue(req: SendRequest, via: 'update' | 'signal'): void {
    const { rt } = this;
    const known = rt.outbox.outcomes.get(req.requestId);
    if (known) {
      if (via === 'signal' && req.requester && wantsToHear(req, known))
        notifyRequester(rt.signals, req.requester, req.requestId, known);
      return;
    }
    const taken = rt.outbox.enqueue(req, via, rt.tally.lastSeq);
    reportOutbox(rt);
    // A handler's first request ends its hold on later handlers' first replies.
    if (taken !== 'duplicate' && req.handlerSeq !== undefined) rt.order.release(req.handlerSeq);
    if (typeof taken === 'object') {
      if (via === 'signal' && req.requester && wantsToHear(req, taken.refused))
        notifyRequester(rt.signals, req.requester, req.requestId, taken.refused);
      else if (via === 'signal') rt.sendFailed(req, taken.refused);
    }
  }
}
