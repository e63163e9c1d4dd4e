/**
 * Quotes of a message still being sent. The human can quote a message as soon as the service
 * accepted it, but the agent registers the question's waiter only when it processes the send's
 * result (a slow answer, a worker lost mid-send, an ambiguous attempt being reconciled), so
 * routing the answer at once would hand it to a new handler while the question waits on (found
 * by the chaos run: an approval's quoted "yes").
 *
 * - While the send is in flight, the page waits for it to settle.
 * - While it is being reconciled, the page cannot wait (the reconciliation needs the poll loop's
 *   next poll, and the page's own receipts may be its evidence): the message alone is held,
 *   and routed once that send has settled. Continue-as-new waits for held messages.
 */
import { condition, patched } from '@temporalio/workflow';
import type { InboundMessage } from '../types';
import { Router } from './router';
import type { AgentRuntime } from './runtime';

/** Runs recorded before a quote of a message still being sent waited for its send to settle. */
const PATCH_QUOTE_WAITS_FOR_SEND = 'amsflow-quote-waits-for-send';
/** Runs recorded before such a quote was held while its send was being reconciled. */
const PATCH_QUOTE_HELD_WHILE_RECONCILING = 'amsflow-quote-held-while-reconciling';

/** What the rule looks at: the ids the agent knows and the send in flight. Pure. */
export interface QuoteView {
  knowsSent(id: string): boolean;
  waitsFor(id: string): boolean;
  sending: boolean;
}

/** `message` quotes an id that is neither a known send of ours nor one a wait is registered for. */
export function quotesUnsettled(view: QuoteView, message: InboundMessage): boolean {
  const quoted = Router.quotedId(message);
  return quoted !== undefined && !view.knowsSent(quoted) && !view.waitsFor(quoted);
}

function viewOf(rt: AgentRuntime): QuoteView {
  return {
    knowsSent: (id) => rt.ledger.knowsSent(id),
    waitsFor: (id) => rt.router.waitsFor(id),
    sending: rt.outbox.sending !== undefined,
  };
}

/** Before a page is routed: waits for the send in flight if a message quotes an unknown id. */
export async function awaitQuotedSend(rt: AgentRuntime, fresh: InboundMessage[]): Promise<void> {
  const view = viewOf(rt);
  if (!view.sending || !fresh.some((m) => quotesUnsettled(view, m))) return;
  if (!patched(PATCH_QUOTE_WAITS_FOR_SEND)) return;
  // (Not past a reconciliation's start: it needs this loop's next poll to decide the send.)
  await condition(() => rt.outbox.sending === undefined || rt.reconciling > 0);
}

/** Whether `message` must be held: it quotes an unknown id while a send is being reconciled. */
export function mustHold(rt: AgentRuntime, message: InboundMessage): boolean {
  const view = viewOf(rt);
  return (
    view.sending &&
    rt.reconciling > 0 &&
    quotesUnsettled(view, message) &&
    patched(PATCH_QUOTE_HELD_WHILE_RECONCILING)
  );
}

/**
 * Holds `message` until the send now in flight has settled, then hands it to `route`; the page
 * goes on meanwhile. Counted in `rt.heldQuotes` until routed.
 */
export function holdThenRoute(
  rt: AgentRuntime,
  message: InboundMessage,
  seq: number,
  route: (rt: AgentRuntime, message: InboundMessage, seq: number) => Promise<void>,
): Promise<void> {
  const inFlight = rt.outbox.sending;
  rt.heldQuotes++;
  const routed = (async () => {
    await condition(() => rt.outbox.sending !== inFlight);
    await route(rt, message, seq);
  })();
  return routed.finally(() => {
    rt.heldQuotes--;
  });
}
