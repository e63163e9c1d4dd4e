/**
 * Where an inbound message goes (pure): the router's registrations (quoted, bare-word and
 * next-message waiters), "which one?" lists, the destination decided over them, and the hold of
 * an answer to a message still being sent.
 */
import {
  gistOf,
  type RoutingProof,
  answerWord,
  type InboundMessage,
  type RoutedMessage,
} from '../../protocol/conversations';
import { BoundedMap } from './bounds';

/**
 * Where an inbound message goes: the waiter of the message it quotes (or reacts to), else the
 * oldest waiter for the next message, else a new handler. Every message reaches exactly one
 * place: a wait that ends (times out) after a message was routed to it hands that message back
 * (the waiter names the wait it ends; the router returns what it had routed to that wait), and
 * a waiter that has closed is forgotten so the message goes on to the next place. Pure.
 *
 * Bounds: at most `maxWaiters` registrations; past that the oldest is dropped (its conversation
 * hears nothing more and ends at its own timeout). The last delivery to each wait is kept for
 * hand-back for the `ROUTED_KEPT` most recent deliveries: a wait ends within seconds of a
 * crossing delivery, and a message is up to 16 KB of carried state.
 */

/** A registered wait: a workflow and which of its waits (`waitId`; a wait request may omit it). */
export interface Waiter {
  workflowId: string;
  waitId?: number;
  /** The question the wait is for (a message id of ours), when it is one: told with the answer. */
  questionId?: string;
  /** What "which one?" lists it as (its question, shortened), when it has told. */
  label?: string;
}

/** How "which one?" lists a wait for the next message that told no question. */
export const NEXT_MESSAGE_LABEL = 'the conversation waiting for your next message';

export interface RouterState {
  replyWaiters: [string, Waiter][];
  nextWaiters: Waiter[];
  routed?: [string, RoutedMessage][];
  /** Questions whose wait timed out: question message id -> the workflow that asked. */
  expiredQuestions?: [string, string][];
  /** Waits that take a bare answer word (an approval's yes/no): workflow id -> the registration. */
  wordWaiters?: [string, WordWaiter][];
  /** What the agent answers a late answer to an expired question whose workflow has ended. */
  lateTexts?: [string, string][];
  /** The "which one?" lists the agent asked (see `WhichOnes`). */
  whichOnes?: [string, WhichOne][];
  /** Recent deliveries, by message id: the routing proof a conversation asks for (protocol/conversations.ts). */
  deliveries?: [string, RoutingProof][];
}

/** A wait that takes a message that is exactly one of `words` (an approval's "yes"/"no"). */
export interface WordWaiter {
  waiter: Waiter;
  words: string[];
  /** What "which one?" lists it as (the question, shortened). */
  label: string;
  /** The conversation it asks for: that one's wait for the next message is no other question. */
  askedBy?: string;
}

/**
 * Bounds of the answer-word slices (carried state stays bounded): waits taking bare words (past
 * it the oldest loses its bare words and is still answered by quoting), words per wait and their
 * length, label and late-text length in UTF-16 units.
 */
export const WORD_WAITERS_KEPT = 50;
export const WORDS_MAX = 24;
export const WORD_MAX = 12;
export const LABEL_MAX = 80;
export const LATE_TEXT_MAX = 100;
/** Late texts kept (older expired questions get the default "That question has expired."). */
export const LATE_TEXTS_KEPT = 100;

/** A late answer: a message quoting (or reacting to) a question whose wait timed out. */
export interface LateAnswer {
  workflowId: string;
  questionId: string;
  /** What the agent answers when the workflow has ended (default "That question has expired."). */
  lateText?: string;
}

/** Deliveries remembered for hand-back. */
export const ROUTED_KEPT = 20;
/** Timed-out questions remembered, so a late answer goes to its conversation, not a new handler. */
export const EXPIRED_KEPT = 200;
/**
 * Deliveries remembered for the routing proof: a conversation asks right after its delivery, so
 * 100 deliveries later is far past any proof still asked for (each up to ~0.6 KB carried).
 */
export const DELIVERIES_KEPT = 100;

export class Router {
  /** Quoted message id (a question the workflow asked) -> the waiter for a reply to it. */
  private readonly replyWaiters: BoundedMap<string, Waiter>;
  /** Waiters for the human's next message, oldest first. */
  private nextWaiters: Waiter[];
  /** The last message routed to each workflow's wait, until the workflow waits again or hands it back. */
  private readonly routed: BoundedMap<string, RoutedMessage>;
  /** Question message id -> the workflow whose wait for its answer timed out. */
  private readonly expired: BoundedMap<string, string>;
  /** Question message id -> the agent's answer to a late answer once its workflow has ended. */
  private readonly lateTexts: BoundedMap<string, string>;
  /** Workflow id -> its wait for a bare answer word. */
  private readonly wordWaiters: BoundedMap<string, WordWaiter>;
  /** The "which one?" lists asked, so that a reply quoting one with a number is understood. */
  readonly whichOnes: WhichOnes;
  /** Message id -> where it was delivered (the routing proof). */
  private readonly deliveries: BoundedMap<string, RoutingProof>;

  constructor(
    private readonly maxWaiters: number,
    carried?: Partial<RouterState>,
  ) {
    this.replyWaiters = new BoundedMap(maxWaiters, carried?.replyWaiters ?? []);
    this.nextWaiters = (carried?.nextWaiters ?? []).slice(-maxWaiters);
    this.routed = new BoundedMap(ROUTED_KEPT, carried?.routed ?? []);
    this.expired = new BoundedMap(EXPIRED_KEPT, carried?.expiredQuestions ?? []);
    this.lateTexts = new BoundedMap(LATE_TEXTS_KEPT, carried?.lateTexts ?? []);
    this.wordWaiters = new BoundedMap(WORD_WAITERS_KEPT, carried?.wordWaiters ?? []);
    this.whichOnes = new WhichOnes(carried?.whichOnes ?? []);
    this.deliveries = new BoundedMap(DELIVERIES_KEPT, carried?.deliveries ?? []);
  }

  /** Whether a wait is registered for a reply quoting `messageId`. */
  waitsFor(messageId: string): boolean {
    return this.replyWaiters.has(messageId);
  }

  /** The id a message quotes or reacts to, if any. */
  static quotedId(message: InboundMessage): string | undefined {
    return message.context?.id ?? (message.type === 'reaction' ? message.reaction?.message_id : undefined);
  }

  /**
   * Registers `waiter` for a reply quoting `questionId` (when given) and, unless `nextToo` is
   * false, for the human's next message. A new wait of a workflow ends its earlier ones.
   */
  register(
    waiter: Waiter,
    questionId?: string,
    nextToo = true,
    answers?: { words: string[]; label: string; askedBy?: string },
    label?: string,
  ): void {
    this.forget(waiter.workflowId);
    this.routed.delete(waiter.workflowId);
    // The waiter is told which question it waits on with the answer (it need not be told on send).
    if (questionId) waiter = { ...waiter, questionId };
    const named = label ?? answers?.label;
    if (named) waiter = { ...waiter, label: named.slice(0, LABEL_MAX) };
    if (questionId) this.replyWaiters.set(questionId, waiter);
    if (answers && answers.words.length > 0) {
      this.wordWaiters.set(waiter.workflowId, {
        waiter,
        words: answers.words.slice(0, WORDS_MAX).map((w) => answerWord(w).slice(0, WORD_MAX)),
        label: answers.label.slice(0, LABEL_MAX),
        ...(typeof answers.askedBy === 'string' ? { askedBy: answers.askedBy } : {}),
      });
    }
    if (nextToo) {
      this.nextWaiters.push(waiter);
      if (this.nextWaiters.length > this.maxWaiters) this.nextWaiters.shift();
    }
  }

  /**
   * Ends `waiter`'s wait. Returns the message routed to that wait before the end arrived, which
   * the waiter will not take: the caller routes it on.
   */
  end(waiter: Waiter, lateText?: string): RoutedMessage | undefined {
    for (const [questionId, w] of this.replyWaiters) {
      if (w.workflowId !== waiter.workflowId) continue;
      this.expired.set(questionId, waiter.workflowId);
      if (lateText) this.lateTexts.set(questionId, lateText.slice(0, LATE_TEXT_MAX));
    }
    this.forget(waiter.workflowId);
    const routed = this.routed.get(waiter.workflowId);
    if (!routed || waiter.waitId === undefined || routed.waitId !== waiter.waitId) return undefined;
    this.routed.delete(waiter.workflowId);
    return { message: routed.message, seq: routed.seq };
  }

  /**
   * The conversation a late answer belongs to: `message` quotes (or reacts to) a question whose
   * wait timed out, and no wait registered since is for that question. Such a message never goes
   * to a next-message waiter or a new handler as if it were new.
   */
  late(message: InboundMessage): LateAnswer | undefined {
    const questionId = Router.quotedId(message);
    if (!questionId || this.replyWaiters.has(questionId)) return undefined;
    const workflowId = this.expired.get(questionId);
    if (!workflowId) return undefined;
    const lateText = this.lateTexts.get(questionId);
    return { workflowId, questionId, ...(lateText === undefined ? {} : { lateText }) };
  }

  /** The word waiters a bare answer (not quoting anything) would go to. */
  private byWord(message: InboundMessage): WordWaiter[] {
    if (Router.quotedId(message) || message.type !== 'text') return [];
    const word = answerWord(message.text?.body ?? '');
    return [...this.wordWaiters.values()].filter((w) => w.words.includes(word));
  }

  /**
   * When a bare answer word could answer more than one open question: several waits take it
   * ("yes" with two approvals pending), or a wait takes it while another conversation waits for
   * the human's next message (an approval pending while a model asked "Reply yes."): their labels,
   * so that the agent asks "which one?" and never picks the approval silently. Undefined when the
   * word fits one question or none.
   */
  ambiguous(message: InboundMessage): string[] | undefined {
    return this.ambiguousWaits(message)?.map((w) => w.label);
  }

  /** {@link ambiguous} with the workflow of each wait, in the order "which one?" lists them. */
  ambiguousWaits(message: InboundMessage): { workflowId: string; label: string }[] | undefined {
    const fits = this.byWord(message);
    if (fits.length === 0) return undefined;
    // A wait's own asker (a model turn listening while its tool's approval is asked) is no other question.
    const taking = new Set(fits.flatMap((w) => [w.waiter.workflowId, ...(w.askedBy ? [w.askedBy] : [])]));
    const others = this.nextWaiters.filter((w) => !taking.has(w.workflowId));
    const waits = [
      ...fits.map((w) => ({ workflowId: w.waiter.workflowId, label: w.label })),
      ...others.map((w) => ({ workflowId: w.workflowId, label: w.label ?? NEXT_MESSAGE_LABEL })),
    ];
    return waits.length > 1 ? waits : undefined;
  }

  /** The waits of `workflowIds` a "which one?" listed that still wait, in that order, with their labels. */
  choosable(workflowIds: string[]): { workflowId: string; label: string }[] {
    return workflowIds.flatMap((workflowId) => {
      const word = this.wordWaiters.get(workflowId);
      if (word) return [{ workflowId, label: word.label }];
      const next = this.nextWaiters.find((w) => w.workflowId === workflowId);
      return next ? [{ workflowId, label: next.label ?? NEXT_MESSAGE_LABEL }] : [];
    });
  }

  /** Takes `workflowId`'s wait picked from a "which one?" list, if it still waits (for a bare word or the next message). */
  takeChoice(workflowId: string): Waiter | undefined {
    const found =
      this.wordWaiters.get(workflowId)?.waiter ?? this.nextWaiters.find((w) => w.workflowId === workflowId);
    if (found) this.forget(workflowId);
    return found;
  }

  /**
   * Takes the waiter `message` goes to, or undefined for a new handler. The waiter's
   * registrations are removed: a wait is served once.
   */
  take(message: InboundMessage): Waiter | undefined {
    const quoted = Router.quotedId(message);
    const byQuote = quoted ? this.replyWaiters.get(quoted) : undefined;
    if (byQuote) {
      this.forget(byQuote.workflowId);
      return byQuote;
    }
    // A reaction answers only the message it reacts to.
    if (message.type === 'reaction') return undefined;
    // A bare answer word goes to the one wait that takes it (several: see `ambiguous`).
    const fits = this.byWord(message);
    if (fits.length === 1) {
      this.forget(fits[0].waiter.workflowId);
      return fits[0].waiter;
    }
    const next = this.nextWaiters[0];
    if (next) this.forget(next.workflowId);
    return next;
  }

  /**
   * Records that `routed` is being delivered to `waiter`, before the delivery is issued: an end
   * of that wait processed while the delivery is in flight must find it and hand it back.
   */
  delivered(waiter: Waiter, routed: RoutedMessage): void {
    if (waiter.waitId !== undefined) this.routed.set(waiter.workflowId, { ...routed, waitId: waiter.waitId });
    this.deliveries.set(routed.message.id, {
      workflowId: waiter.workflowId,
      ...(waiter.waitId === undefined ? {} : { waitId: waiter.waitId }),
      gist: gistOf(routed.message),
    });
  }

  /** Where message `messageId` was delivered, while it is remembered: the routing proof. */
  routedTo(messageId: string): RoutingProof | null {
    return this.deliveries.get(messageId) ?? null;
  }

  /**
   * The delivery of arrival `seq` to `workflowId` failed (the workflow has closed). Returns true
   * when the message is still the caller's to route on, false when an end of the wait already
   * handed it back (and so routed it on).
   */
  undeliverable(workflowId: string, seq: number, waitId: number | undefined): boolean {
    this.forget(workflowId);
    if (waitId === undefined) return true;
    const routed = this.routed.get(workflowId);
    if (routed?.seq !== seq) return false;
    this.routed.delete(workflowId);
    return true;
  }

  /** The question `waiter`'s wait is registered for, while it is (a nudge quotes it). */
  questionOf(waiter: Waiter): string | undefined {
    for (const [questionId, w] of this.replyWaiters)
      if (w.workflowId === waiter.workflowId && w.waitId === waiter.waitId) return questionId;
    return undefined;
  }

  /** True while `waiter`'s wait is registered: no message has been routed to it and it has not ended. */
  isWaiting(waiter: Waiter): boolean {
    const same = (w: Waiter) => w.workflowId === waiter.workflowId && w.waitId === waiter.waitId;
    if (this.nextWaiters.some(same)) return true;
    if (same(this.wordWaiters.get(waiter.workflowId)?.waiter ?? { workflowId: '' })) return true;
    for (const [, w] of this.replyWaiters) if (same(w)) return true;
    return false;
  }

  /** Removes every registration of `workflowId` (its wait ended, was served, or it closed). */
  forget(workflowId: string): void {
    this.nextWaiters = this.nextWaiters.filter((w) => w.workflowId !== workflowId);
    for (const [key, w] of this.replyWaiters) if (w.workflowId === workflowId) this.replyWaiters.delete(key);
    this.wordWaiters.delete(workflowId);
  }

  get counts(): { reply: number; next: number } {
    return { reply: this.replyWaiters.size, next: this.nextWaiters.length };
  }

  snapshot(): RouterState {
    return {
      replyWaiters: [...this.replyWaiters.entries()],
      nextWaiters: [...this.nextWaiters],
      routed: [...this.routed.entries()],
      expiredQuestions: [...this.expired.entries()],
      wordWaiters: [...this.wordWaiters.entries()],
      lateTexts: [...this.lateTexts.entries()],
      whichOnes: this.whichOnes.snapshot(),
      deliveries: [...this.deliveries.entries()],
    };
  }
}

/**
 * "Which one?": when a bare answer word could answer more than one open question (a "yes" with
 * two approvals pending, or with an approval pending while another conversation waits for the
 * human's next message), the agent lists them and decides nothing. The human answers by quoting a listed question, or
 * by quoting the list with a number: the first bare answer then goes to that wait. A list is
 * remembered under its request id until it is sent, then under its message id. Pure.
 *
 * Bounds: the `WHICH_ONES_KEPT` most recent lists (an older list quoted is an ordinary message),
 * each with its first `CHOICES_KEPT` waits pickable by number (the rest by quoting them).
 */

/** Lists remembered. */
export const WHICH_ONES_KEPT = 3;
/** Waits of a list that its number picks (a later one is answered by quoting its question). */
export const CHOICES_KEPT = 9;
/** Characters of the held answer kept: it is a bare answer word, padding and all. */
const ANSWER_CHARS = 64;

/** A "which one?" the agent asked: the bare answer it holds and the workflows of the waits it listed, in order. */
export interface WhichOne {
  answer: InboundMessage;
  workflowIds: string[];
}

/** What a message quoting a list asks for. */
export type WhichChoice =
  /** The n-th listed wait (1-based, within the list): it gets the held answer. */
  | { kind: 'pick'; workflowId: string; answer: InboundMessage }
  /** No number of the list: the agent asks again. */
  | { kind: 'again'; list: WhichOne };

/** "Which one?" with the questions a bare answer fits. */
export function whichOneText(labels: string[]): string {
  return [
    'Which one? Reply to this with its number, or quote the question you answer:',
    ...labels.map((l, i) => `${i + 1}. ${l}`),
  ].join('\n');
}

/** The list number in a reply to a list ("2", "#2", "2."), or undefined when it names none. */
export function choiceNumber(text: string | undefined): number | undefined {
  const m = /^\s*#?(\d{1,3})\s*[.)]?\s*$/.exec(text ?? '');
  return m ? Number(m[1]) : undefined;
}

export class WhichOnes {
  private readonly lists: BoundedMap<string, WhichOne>;

  constructor(carried: Iterable<readonly [string, WhichOne]> = []) {
    this.lists = new BoundedMap(WHICH_ONES_KEPT, carried);
  }

  /** The list being sent as request `requestId`. */
  asked(requestId: string, list: WhichOne): void {
    const { from, id, timestamp, text } = list.answer;
    const answer = {
      from,
      id,
      timestamp,
      type: 'text',
      text: { body: (text?.body ?? '').trim().slice(0, ANSWER_CHARS) },
    };
    this.lists.set(requestId, { answer, workflowIds: list.workflowIds.slice(0, CHOICES_KEPT) });
  }

  /** Request `requestId` was sent as message `messageId`: a reply quoting it finds the list. */
  sent(requestId: string, messageId: string): void {
    const list = this.lists.get(requestId);
    if (!list) return;
    this.lists.delete(requestId);
    this.lists.set(messageId, list);
  }

  /** What `message` picks when it quotes a list (text only); undefined when it quotes none. */
  choice(message: InboundMessage): WhichChoice | undefined {
    const quoted = message.context?.id;
    const list = quoted ? this.lists.get(quoted) : undefined;
    if (!list || message.type !== 'text') return undefined;
    const n = choiceNumber(message.text?.body);
    const picked = n === undefined ? undefined : list.workflowIds[n - 1];
    return picked ? { kind: 'pick', workflowId: picked, answer: list.answer } : { kind: 'again', list };
  }

  snapshot(): [string, WhichOne][] {
    return [...this.lists.entries()];
  }
}

/**
 * Where an inbound message goes, decided in one place over the router's registrations (pure):
 * a late answer to a timed-out question goes to the conversation that asked; a reply to a
 * "which one?" list is a choice; a bare answer word that could answer more than one open question
 * (several approvals, or an approval and another conversation's question) gets "which one?";
 * anything else goes to the waiters that take it, in turn (`Router.take`), and when none takes
 * it, to a new handler. The dispatcher carries the decision out.
 */

export type Destination =
  | { kind: 'late'; late: LateAnswer }
  | { kind: 'choice'; choice: WhichChoice }
  | { kind: 'which'; waits: { workflowId: string; label: string }[] }
  | { kind: 'waiters' };

export function destinationOf(router: Router, message: InboundMessage): Destination {
  const late = router.late(message);
  if (late) return { kind: 'late', late };
  const choice = router.whichOnes.choice(message);
  if (choice) return { kind: 'choice', choice };
  const waits = router.ambiguousWaits(message);
  if (waits) return { kind: 'which', waits };
  return { kind: 'waiters' };
}

/** What a pick from a list gets when that question was answered or ended meanwhile. */
export const NOT_WAITING_TEXT = 'That question is not waiting for an answer any more.';

/**
 * A reply to a "which one?" list that picks nothing: the list again, of the waits that still
 * wait (numbered anew), or, when none does, that the question is not waiting any more.
 */
export function askAgain(
  router: Router,
  choice: Extract<WhichChoice, { kind: 'again' }>,
): { waits: { workflowId: string; label: string }[] } | { text: string } {
  const waits = router.choosable(choice.list.workflowIds);
  return waits.length > 0 ? { waits } : { text: NOT_WAITING_TEXT };
}

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
