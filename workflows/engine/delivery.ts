/**
 * Handing a message to a waiting workflow, and the agent's own short answers (which one?, that
 * question expired): the two ways `route` ends besides starting a handler.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { inboundSignal } from '../../protocol/messages';
import { uncheckedTextMessage } from '../author/builders';
import type { InboundMessage, RoutedMessage } from '../../protocol';
import type { Waiter } from './router';
import type { AgentRuntime } from './runtime';

/**
 * Signals `message` (arrival `seq`) to `waiter`. Resolves to true when the message is settled
 * (delivered, or handed back by an end of the wait, which routed it on), false when the waiter
 * has closed and the message is still the caller's to route.
 */
export async function deliverTo(
  rt: AgentRuntime,
  waiter: Waiter,
  message: InboundMessage,
  seq: number,
): Promise<boolean> {
  const routed: RoutedMessage = {
    message,
    seq,
    ...(waiter.waitId === undefined ? {} : { waitId: waiter.waitId }),
  };
  // Recorded before the signal: an end of this wait processed meanwhile hands the message back.
  rt.router.delivered(waiter, routed);
  // Its answer goes before later messages' first replies, as a new handler's would.
  rt.order.hold(seq, rt.now());
  try {
    await getExternalWorkflowHandle(waiter.workflowId).signal(inboundSignal, routed);
    return true;
  } catch (err) {
    // The waiter has closed: route elsewhere, unless its end already handed the message back.
    rt.noteError('route', err);
    return !rt.router.undeliverable(waiter.workflowId, seq, waiter.waitId);
  }
}

/** The agent's own answer to `message`, through the outbox; returns its request id. */
export function answer(rt: AgentRuntime, message: InboundMessage, kind: string, text: string): string {
  const requestId = `${rt.workflowId}/${kind}/${message.id}`;
  rt.outbox.enqueue(
    { requestId, message: uncheckedTextMessage(text, { replyTo: message }) },
    'signal',
    rt.inboundSeq,
  );
  return requestId;
}
