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
 *
 * Pure: the dispatcher acts on these answers.
 */
import type { InboundMessage } from '../../protocol';
import { Router } from './router';

/** What the rule looks at: the ids the agent knows and the send in flight. */
export interface QuoteView {
  knowsSent(id: string): boolean;
  waitsFor(id: string): boolean;
  /** An attempt is under way (a request still waiting for its turn cannot have been seen). */
  sending: boolean;
  /** The send in flight is a question that takes the human's next message or bare answer words. */
  questionInFlight?: boolean;
  /** The send in flight is being reconciled. */
  reconciling?: boolean;
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

/** `message` may answer the send in flight. */
export function mayAnswerInFlight(view: QuoteView, message: InboundMessage): boolean {
  return view.sending && (quotesUnsettled(view, message) || mayAnswerQuestion(view, message));
}

/** Whether a page of `fresh` messages waits for the send in flight to settle before it is routed. */
export function pageWaits(view: QuoteView, fresh: InboundMessage[]): boolean {
  return fresh.some((m) => mayAnswerInFlight(view, m));
}

/** Whether `message` must be held: it may answer a send that is being reconciled. */
export function mustHold(view: QuoteView, message: InboundMessage): boolean {
  return view.reconciling === true && mayAnswerInFlight(view, message);
}
