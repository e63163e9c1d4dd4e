/**
 * Answers to a message still being sent. The human can answer a question as soon as the service
 * accepted it, but the agent registers the question's waiter only when it processes the send's
 * result (a slow answer, a worker lost mid-send, an ambiguous attempt being reconciled), so
 * routing the answer at once would hand it to a new handler while the question waits on (found
 * by the chaos run: an approval's quoted "yes", a signup's email). A message may answer the send
 * in flight when it quotes (or reacts to) an id the agent does not know, or when it quotes
 * nothing and that send is a question taking the human's next message (or bare yes/no words).
 *
 * - While the send is in flight, the page waits for it to settle.
 * - While it is being reconciled, the page cannot wait (the reconciliation needs the poll loop's
 *   next poll, and the page's own receipts may be its evidence): such a message alone is held,
 *   and routed once that send has settled. Continue-as-new waits for held messages.
 */
import { condition, patched } from '@temporalio/workflow';
import type { InboundMessage } from '../../protocol';
import { Router } from './router';
import type { AgentRuntime } from './runtime';

/** Runs recorded before a quote of a message still being sent waited for its send to settle. */
const PATCH_QUOTE_WAITS_FOR_SEND = 'amsflow-quote-waits-for-send';
/** Runs recorded before an unquoted message waited for a question still being sent. */
const PATCH_NEXT_WAITS_FOR_QUESTION = 'amsflow-next-waits-for-question';
/** Runs recorded before such messages were held while the send was being reconciled. */
const PATCH_ANSWER_HELD_WHILE_RECONCILING = 'amsflow-answer-held-while-reconciling';

/** What the rule looks at: the ids the agent knows and the send in flight. Pure. */
export interface QuoteView {
  knowsSent(id: string): boolean;
  waitsFor(id: string): boolean;
  sending: boolean;
  /** The send in flight is a question that takes the human's next message or bare answer words. */
  questionInFlight?: boolean;
}

/** `message` quotes an id that is neither a known send of ours nor one a wait is registered for. */
export function quotesUnsettled(view: QuoteView, message: InboundMessage): boolean {
  const quoted = Router.quotedId(message);
  return quoted !== undefined && !view.knowsSent(quoted) && !view.waitsFor(quoted);
}

/** `message` quotes nothing while a question that takes the next message is being sent. */
export function mayAnswerQuestion(view: QuoteView, message: InboundMessage): boolean {
  return view.sending && view.questionInFlight === true && Router.quotedId(message) === undefined;
}

function viewOf(rt: AgentRuntime): QuoteView {
  // Only an attempt under way: a request still waiting for its turn cannot have been seen.
  const sending = rt.attempting;
  return {
    knowsSent: (id) => rt.ledger.knowsSent(id),
    waitsFor: (id) => rt.router.waitsFor(id),
    sending: sending !== undefined,
    questionInFlight:
      sending?.expectReply === true &&
      sending.requester !== undefined &&
      (sending.waitNextToo !== false || (sending.answerWords?.length ?? 0) > 0),
  };
}

/**
 * Before a page is routed: the wait for the send in flight if a message of the page may answer
 * it, else undefined. (Not a promise when there is nothing to wait for: an extra await would move
 * the page's commands after other loops' and break the replay of recorded runs.)
 */
export function sendInFlightWait(rt: AgentRuntime, fresh: InboundMessage[]): Promise<void> | undefined {
  const view = viewOf(rt);
  if (!view.sending) return undefined;
  const quote = fresh.some((m) => quotesUnsettled(view, m)) && patched(PATCH_QUOTE_WAITS_FOR_SEND);
  const next =
    !quote && fresh.some((m) => mayAnswerQuestion(view, m)) && patched(PATCH_NEXT_WAITS_FOR_QUESTION);
  if (!quote && !next) return undefined;
  // (Not past a reconciliation's start: it needs this loop's next poll to decide the send.)
  return condition(() => rt.attempting === undefined || rt.reconciling > 0);
}

/** Whether `message` must be held: it may answer a send that is being reconciled. */
export function mustHold(rt: AgentRuntime, message: InboundMessage): boolean {
  const view = viewOf(rt);
  return (
    view.sending &&
    rt.reconciling > 0 &&
    (quotesUnsettled(view, message) || mayAnswerQuestion(view, message)) &&
    patched(PATCH_ANSWER_HELD_WHILE_RECONCILING)
  );
}

/**
 * Holds `message` until the send now in flight has settled, then hands it to `route`; the page
 * goes on meanwhile. Counted in `rt.heldAnswers` until routed.
 */
export function holdThenRoute(
  rt: AgentRuntime,
  message: InboundMessage,
  seq: number,
  route: (rt: AgentRuntime, message: InboundMessage, seq: number) => Promise<void>,
): Promise<void> {
  const inFlight = rt.attempting;
  rt.heldAnswers++;
  const routed = (async () => {
    await condition(() => rt.attempting !== inFlight);
    await route(rt, message, seq);
  })();
  return routed.finally(() => {
    rt.heldAnswers--;
  });
}
