/**
 * The dispatcher (`Dispatcher`): the owner of where a message goes. It hands each inbound message
 * on (waiters, handlers, late answers, "which one?"), keeps the first-reply order and the
 * handlers that may still complete into the run, forwards receipts to the conversations that
 * watch them, and takes a conversation's operations in (the ops intake), each carried out by the
 * owner of what it changes. Where a message goes is decided in router.ts.
 */
import {
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  log,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { z } from 'zod';
import { handlerWorkflowId } from '../../protocol/agent';
import { inboundSignal, lateSignal, movingSignal, opsSignal } from '../../protocol/messages';
import { uncheckedTextMessage } from '../author/builders';
import { countHandlerStart } from '../author/metrics';
import { EXPIRED_QUESTION_TEXT } from '../author/text';
import type {
  InboundMessage,
  RoutedMessage,
  WaitRequest,
  ConversationOp,
  Status,
} from '../../protocol/conversations';
import { conversationOpSchema, schemaProblem } from '../../protocol/message-schemas';
import { dropSignal } from '../author/checked-handlers';
import {
  askAgain,
  destinationOf,
  NOT_WAITING_TEXT,
  mustHold,
  pageWaits,
  type QuoteView,
  type LateAnswer,
  Router,
  type Waiter,
  whichOneText,
  type WhichChoice,
} from './router';
import {
  FirstReplyOrder,
  type FirstReplyTurns,
  FLOOD_TEXT,
  HandlerChildren,
  InboundBudget,
} from './handlers';
import type { AgentRuntime, DispatcherParts } from './runtime';
import { Receipts } from './receipts';
import type { Queued } from './outbox';
import {
  type Sender,
  type SendPolls,
  type SendRoutes,
  notifyRequester,
  invalidRequestOutcome,
} from './sender';

/**
 * The dispatcher: the one part that hands inbound messages on, and the one owner of the router,
 * the first-reply order, the handlers of this run (`HandlerChildren`), the inbound budget and the
 * receipts on their way to conversations (`Receipts`). It numbers each arrival, carries
 * out where it goes (decided in router.ts over the router), and is the only caller of the
 * inbound and late signals and of handler starts; it also holds an answer to a send still in
 * flight (router.ts). (The receipts' rules, and the ledger the sender keeps, are receipts.ts's.)
 *
 * A page never waits for its hand-offs: each start or signal is issued in the workflow task that
 * reads the page (recorded in history, so the message may be marked read), and what comes of it
 * later (a waiter that has closed, a handler's result) is followed by owned work that holds the
 * hand-over to the next run until it is settled.
 */

/** What becomes of a handler's result: its operations, taken by the ops intake. */
export type HandlerResultSink = (workflowId: string, result: unknown) => Promise<void>;

export class Dispatcher implements SendRoutes {
  private takeResult: HandlerResultSink = () => Promise.resolve();
  private readonly router: Router;
  private readonly order: FirstReplyOrder;
  /** Handlers of this run that may still complete into it. */
  private readonly children = new HandlerChildren();
  /** How many new messages the agent takes in per window. */
  private readonly inbound: InboundBudget;
  /** Receipts on their way to the conversations that watch them. */
  private readonly receipts: Receipts;

  constructor(
    private readonly rt: AgentRuntime,
    private readonly sender: Sender,
    polls: Pick<SendPolls, 'endQuietPoll'>,
  ) {
    const { tuning, input } = rt;
    const { carried } = input;
    this.router = new Router(tuning.maxWaiters, carried);
    this.order = new FirstReplyOrder(tuning.orderingGraceMs, carried?.slots);
    this.inbound = new InboundBudget(tuning.inboundBudget, tuning.inboundBudgetWindowMs, carried);
    this.receipts = new Receipts({
      tally: rt.tally,
      ledger: {
        receive: (status, now) => sender.receiptSeen(status, now),
        watch: (messageId, workflowId) => sender.watchReceipts(messageId, workflowId),
      },
      poll: { endQuiet: () => polls.endQuietPoll() },
      signals: rt.signals,
      now: () => rt.now(),
    });
  }

  /** Where handlers' results go (the ops intake, built after the dispatcher). */
  onHandlerResult(sink: HandlerResultSink): void {
    this.takeResult = sink;
  }

  // What the others ask of it.

  /** The first-reply turns of the handlers: the sender's outbox asks them before each send. */
  get firstReplyTurns(): FirstReplyTurns {
    return this.order;
  }

  /** The handler of arrival `seq` sent its first request, or has none to send now. */
  firstReplied(seq: number): void {
    this.order.release(seq);
  }

  /** `req` was sent as `messageId`: a "which one?" list is found by it, a question waits for its reply. */
  replySent(req: Queued, messageId: string): void {
    // A "which one?" list is found by the id a reply to it quotes.
    this.router.whichOnes.sent(req.requestId, messageId);
    if (req.requester && req.expectReply) {
      const answers = req.answerWords
        ? { words: req.answerWords, label: req.answerLabel ?? '', askedBy: req.askedBy }
        : undefined;
      this.router.register(
        { workflowId: req.requester, waitId: req.waitId },
        messageId,
        req.waitNextToo ?? true,
        answers,
        // "Which one?" lists the wait by its question, as the human read it.
        req.answerLabel ?? req.message.text?.body,
      );
    }
  }

  /** The question the wait of `waiter` is for, if any. */
  questionOf(waiter: Waiter): string | undefined {
    return this.router.questionOf(waiter);
  }

  /** Whether `waiter` still waits. */
  isWaiting(waiter: Waiter): boolean {
    return this.router.isWaiting(waiter);
  }

  /** Where message `messageId` went (the `routedTo` query). */
  routedTo(messageId: string): ReturnType<Router['routedTo']> {
    return this.router.routedTo(messageId);
  }

  /**
   * A receipt a poll brought (read at `readAt`, when a quiet poll read it past earlier): recorded,
   * and forwarded to the conversation that watches it (receipts.ts).
   */
  receipt(status: Status, readAt?: number): void {
    this.receipts.receive(status, readAt);
  }

  /** `workflowId` watches `messageId`'s receipts (a quiet poll open now is ended: receipts.ts). */
  watchReceipts(messageId: string, workflowId: string): void {
    this.receipts.watch(messageId, workflowId);
  }

  /** `workflowId` hands its operations over by signal from now on: it no longer completes into this run. */
  handsOverBySignal(workflowId: string): void {
    this.children.gone(workflowId);
  }

  /** Handlers of this run that may still complete into it. */
  get handlersPending(): number {
    return this.children.size;
  }

  /**
   * Tells each handler of this run that may still complete into it that the run is moving on
   * (`amsflow.moving`): once the signal is in its history it cannot complete without seeing it, and
   * hands its operations over by signal to the next run. A handler that had completed already
   * (the signal fails) has its result on the way: wait for it.
   */
  async moveHandlers(): Promise<void> {
    const { children } = this;
    const ids = children.youngIds();
    await Promise.all(
      ids.map(async (workflowId) => {
        try {
          await getExternalWorkflowHandle(workflowId).signal(movingSignal);
          children.gone(workflowId);
        } catch {
          await condition(() => !children.has(workflowId));
        }
      }),
    );
  }

  /** What `amsflow state` shows of the dispatcher. */
  get view(): { waiters: Router['counts']; floodDropped: number } {
    return { waiters: this.router.counts, floodDropped: this.inbound.dropped };
  }

  /** The dispatcher's slice of the carried state. */
  carriedParts(): DispatcherParts {
    return { router: this.router, order: this.order, inbound: this.inbound };
  }

  // Where messages go.

  /**
   * Hands off a page's fresh messages in arrival order: every decision is taken now, every start
   * and signal issued now. An answer to a send in flight waits for it (quote-hold).
   */
  async messages(fresh: InboundMessage[]): Promise<void> {
    const { sender } = this;
    // (No await when there is nothing to wait for: it would move the page's commands.)
    if (pageWaits(this.quoteView(), fresh)) {
      // (Not past a reconciliation's start: it needs the poll loop's next poll to decide the send.)
      await condition(() => sender.attempting === undefined || sender.reconciling);
    }
    const view = this.quoteView();
    for (const message of fresh) {
      const seq = this.rt.tally.arrival();
      if (!mustHold(view, message)) this.route(message, seq);
      // Held in workflow state (continue-as-new waits for it): the page goes on without it.
      else this.follow(this.holdThenRoute(message, seq));
    }
  }

  /** A wait request: registers the wait, or ends it and routes on what it had not taken. */
  wait(req: WaitRequest): Promise<void> {
    const { workflowId, wait, waitId, questionId, nextToo, answerWords, label, askedBy, lateText } = req;
    if (wait) {
      const answers = answerWords ? { words: answerWords, label: label ?? '', askedBy } : undefined;
      this.router.register({ workflowId, waitId }, questionId, nextToo, answers, label);
      return Promise.resolve();
    }
    // A wait that ended after a message was routed to it hands the message back.
    const back = this.router.end({ workflowId, waitId }, lateText);
    if (back) this.route(back.message, back.seq);
    return Promise.resolve();
  }

  /** Hands `message` (arrival `seq`) to exactly one place (see router.ts). */
  private route(message: InboundMessage, seq: number): void {
    const to = destinationOf(this.router, message);
    switch (to.kind) {
      case 'late':
        return this.follow(this.late(message, seq, to.late));
      case 'choice':
        return this.choice(message, seq, to.choice);
      case 'which':
        return this.askWhichOne(message, message, to.waits);
      case 'waiters': {
        const waiter = this.router.take(message);
        if (!waiter) return this.startHandler(message, seq);
        return this.follow(this.deliverOrRouteOn(waiter, message, seq));
      }
    }
  }

  /** Owns `work` and holds the hand-over to the next run until it is done. */
  private follow(work: Promise<void>): void {
    const release = this.rt.lifecycle.hold();
    void this.rt.supervisor.own(work.finally(release));
  }

  /** Signals `message` to `waiter`; if the waiter has closed meanwhile, routes it on. */
  private async deliverOrRouteOn(waiter: Waiter, message: InboundMessage, seq: number): Promise<void> {
    if (!(await this.deliver(waiter, message, seq))) this.route(message, seq);
  }

  /** A late answer goes to its conversation; if that has ended, the agent says the question expired. */
  private async late(message: InboundMessage, seq: number, late: LateAnswer): Promise<void> {
    try {
      await getExternalWorkflowHandle(late.workflowId).signal(lateSignal, {
        message,
        seq,
        questionId: late.questionId,
      });
    } catch (err) {
      // The conversation has ended: say so, quoting the answer (a reaction needs no answer).
      this.rt.noteError('route', err);
      if (message.type !== 'reaction')
        this.answer(message, 'expired', late.lateText ?? EXPIRED_QUESTION_TEXT);
    }
  }

  /** A reply to a "which one?" list: its number picks the wait, anything else asks again. */
  private choice(message: InboundMessage, seq: number, choice: WhichChoice): void {
    if (choice.kind === 'again') {
      const again = askAgain(this.router, choice);
      if ('waits' in again) this.askWhichOne(message, choice.list.answer, again.waits);
      else this.answer(message, 'which', again.text);
      return;
    }
    const waiter = this.router.takeChoice(choice.workflowId);
    if (!waiter) return void this.answer(message, 'which', NOT_WAITING_TEXT);
    this.follow(
      this.deliver(waiter, choice.answer, seq).then((settled) => {
        if (!settled) this.answer(message, 'which', NOT_WAITING_TEXT);
      }),
    );
  }

  /** Answers `message` with the list of `waits`, and remembers it for the replies to it. */
  private askWhichOne(
    message: InboundMessage,
    answerWord: InboundMessage,
    waits: { workflowId: string; label: string }[],
  ): void {
    const requestId = this.answer(message, 'which', whichOneText(waits.map((w) => w.label)));
    this.router.whichOnes.asked(requestId, {
      answer: answerWord,
      workflowIds: waits.map((w) => w.workflowId),
    });
  }

  /**
   * Signals `message` (arrival `seq`) to `waiter`. Resolves to true when the message is settled
   * (delivered, or handed back by an end of the wait, which routed it on), false when the waiter
   * has closed and the message is still the caller's to route.
   */
  private async deliver(waiter: Waiter, message: InboundMessage, seq: number): Promise<boolean> {
    const { rt } = this;
    const routed: RoutedMessage = {
      message,
      seq,
      ...(waiter.waitId === undefined ? {} : { waitId: waiter.waitId }),
      ...(waiter.questionId === undefined ? {} : { questionId: waiter.questionId }),
    };
    // Recorded before the signal: an end of this wait processed meanwhile hands the message back.
    this.router.delivered(waiter, routed);
    // Its answer goes before later messages' first replies, as a new handler's would.
    this.order.hold(seq, rt.now());
    try {
      await getExternalWorkflowHandle(waiter.workflowId).signal(inboundSignal, routed);
      return true;
    } catch (err) {
      // The waiter has closed: route elsewhere, unless its end already handed the message back.
      rt.noteError('route', err);
      return !this.router.undeliverable(waiter.workflowId, seq, waiter.waitId);
    }
  }

  /**
   * Starts the handler workflow of `message`, once: a duplicate start means it was handled. The
   * start is issued now; its outcome and the handler's result are followed in owned work.
   */
  private startHandler(message: InboundMessage, seq: number): void {
    const { rt, order, children } = this;
    // Past the inbound budget (a flood): not handled, marked read; the human is told once.
    const admitted = this.inbound.admit(rt.now());
    if (admitted !== 'take') {
      if (admitted === 'tell') {
        log.warn(`agent ${rt.agentKey}: inbound budget spent, new messages are not handled this minute`, {
          agentKey: rt.agentKey,
        });
        this.answer(message, 'flood', FLOOD_TEXT);
      }
      return;
    }
    const workflowId = handlerWorkflowId(rt.agentKey, message.id);
    // Holds later handlers' first replies back until this one has sent its own.
    order.hold(seq, rt.now());
    children.starting(workflowId);
    const started = startChild(rt.input.handlerWorkflowType ?? 'onMessage', {
      workflowId,
      taskQueue: rt.input.handlerTaskQueue,
      args: [
        {
          agentKey: rt.agentKey,
          agentWorkflowId: rt.workflowId,
          message,
          seq,
          ...(rt.input.botConfig === undefined ? {} : { config: rt.input.botConfig }),
          activityQueuePrefix: rt.queuePrefix,
        },
      ],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    // The start is followed under a hold (continue-as-new waits for it); the result is not: at
    // continue-as-new a handler still running is told to hand over by signal instead.
    const whenStarted = started.then(
      (handle) => {
        children.started(workflowId);
        countHandlerStart(rt.agentKey);
        return handle;
      },
      (err: unknown) => {
        children.gone(workflowId);
        order.release(seq);
        // Started before (a replayed page, a run before continue-as-new): already handled.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        return undefined;
      },
    );
    this.follow(whenStarted.then(() => undefined));
    void this.rt.supervisor.own(
      whenStarted.then(async (handle) => {
        if (!handle) return;
        const result: unknown = await handle.result().catch(() => undefined);
        children.gone(workflowId);
        await this.takeResult(workflowId, result);
        // A handler with nothing to send ends its hold on later handlers' first replies.
        order.release(seq);
      }),
    );
  }

  /** The agent's own answer to `message`, through the sender's door; returns its request id. */
  private answer(message: InboundMessage, kind: string, text: string): string {
    const requestId = `${this.rt.workflowId}/${kind}/${message.id}`;
    this.sender.enqueue({ requestId, message: uncheckedTextMessage(text, { replyTo: message }) }, 'agent');
    return requestId;
  }

  /** Holds `message` until the send now in flight has settled, then routes it. */
  private async holdThenRoute(message: InboundMessage, seq: number): Promise<void> {
    const { sender } = this;
    const held = sender.attempting;
    await condition(() => sender.attempting !== held);
    this.route(message, seq);
  }

  private quoteView(): QuoteView {
    const { sender, router } = this;
    return {
      knowsSent: (id) => sender.knowsSent(id),
      waitsFor: (id) => router.waitsFor(id),
      sending: sender.attempting !== undefined,
      questionInFlight: sender.questionInFlight,
      reconciling: sender.reconciling,
    };
  }
}

/**
 * Where a conversation's operations enter the agent (protocol/conversations.ts): from its
 * `amsflow.ops` signal, or from a handler's result when it completes. Each operation is checked
 * on its own (anyone with namespace access can signal anything): one that does not fit, or that
 * names another workflow than the batch's `from`, is dropped and logged, and a send among them
 * that asked for its outcome is answered `SendInvalid`. The rest is carried out in order, each
 * by the part that owns it.
 */

const envelope = z.object({ from: z.string().min(1), ops: z.array(z.unknown()).max(1000) }).passthrough();
const result = z.object({ ops: z.array(z.unknown()).max(1000) }).passthrough();

export class OpsIntake {
  constructor(
    private readonly rt: AgentRuntime,
    private readonly dispatcher: Dispatcher,
    private readonly sender: Sender,
  ) {}

  /** The `amsflow.ops` signal: `from` hands over by signal from now on. */
  signal(arg: unknown): Promise<void> {
    const parsed = envelope.safeParse(arg);
    if (!parsed.success) {
      this.drop(schemaProblem(parsed.error));
      return Promise.resolve();
    }
    this.dispatcher.handsOverBySignal(parsed.data.from);
    return this.take(parsed.data.from, parsed.data.ops);
  }

  /** A handler's result, as its completion brought it (undefined: it handed over by signal). */
  result(from: string, value: unknown): Promise<void> {
    if (value === undefined || value === null) return Promise.resolve();
    const parsed = result.safeParse(value);
    if (!parsed.success) {
      this.drop(`the result of ${from}: ${schemaProblem(parsed.error)}`);
      return Promise.resolve();
    }
    return this.take(from, parsed.data.ops);
  }

  private async take(from: string, ops: unknown[]): Promise<void> {
    const routing: Promise<void>[] = [];
    for (const raw of ops) {
      const parsed = conversationOpSchema.safeParse(raw);
      if (!parsed.success) {
        this.refuse(from, raw, schemaProblem(parsed.error));
        continue;
      }
      const op = parsed.data as ConversationOp;
      const stranger = this.stranger(from, op);
      if (stranger) {
        this.refuse(from, raw, stranger);
        continue;
      }
      const routed = this.apply(from, op);
      if (routed) routing.push(routed);
    }
    // (A wait's end may route a message on: the signal's handler ends when that is done.)
    await Promise.all(routing);
  }

  /** Carries `op` out; returns the routing it started, if any. */
  private apply(from: string, op: ConversationOp): Promise<void> | undefined {
    switch (op.op) {
      case 'send':
        this.sender.enqueue(op.request, 'signal');
        return undefined;
      case 'wait':
        return this.dispatcher.wait(op.request);
      case 'release':
        this.dispatcher.firstReplied(op.seq);
        return undefined;
      case 'typing':
        this.sender.typing(op.messageId);
        return undefined;
      case 'receipts':
        this.dispatcher.watchReceipts(op.messageId, from);
        return undefined;
    }
  }

  /** Why `op` may not come from `from`: it names another workflow as its requester or waiter. */
  private stranger(from: string, op: ConversationOp): string | undefined {
    if (op.op === 'send' && op.request.requester !== undefined && op.request.requester !== from)
      return `a send request of ${op.request.requester}`;
    if (op.op === 'wait' && op.request.workflowId !== from) return `a wait of ${op.request.workflowId}`;
    return undefined;
  }

  /** Drops one operation; a send that waits for its outcome is told `SendInvalid`. */
  private refuse(from: string, raw: unknown, problem: string): void {
    const request = (raw as { op?: unknown; request?: { requestId?: unknown; notify?: unknown } } | null)
      ?.request;
    if (typeof request?.requestId === 'string' && request.notify !== undefined) {
      notifyRequester(this.rt.signals, from, request.requestId, invalidRequestOutcome(problem));
    }
    this.rt.noteError('send', new Error(`an operation of ${from} was dropped: ${problem}`));
    this.drop(problem);
  }

  private drop(problem: string): void {
    dropSignal(opsSignal.name, problem);
  }
}
