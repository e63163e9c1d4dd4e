/**
 * The dispatcher at work: it hands each inbound message on (waiters, handlers, late answers,
 * "which one?"), and takes a conversation's operations in (the ops intake), each carried out by
 * the part that owns it. Where a message goes is decided in router.ts.
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
import { inboundSignal, lateSignal, opsSignal } from '../../protocol/messages';
import { uncheckedTextMessage } from '../author/builders';
import { countHandlerStart } from '../author/metrics';
import { EXPIRED_QUESTION_TEXT } from '../author/text';
import type {
  InboundMessage,
  RoutedMessage,
  WaitRequest,
  ConversationOp,
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
  type Waiter,
  whichOneText,
  type WhichChoice,
} from './router';
import { FLOOD_TEXT } from './handlers';
import type { AgentRuntime } from './runtime';
import type { Receipts } from './receipts';
import { type SendIntake, notifyRequester, invalidRequestOutcome } from './sender';

/**
 * The dispatcher: the one part that hands inbound messages on. It numbers each arrival, carries
 * out where it goes (decided in router.ts over the router), and is the only caller of the
 * inbound and late signals and of handler starts; it also holds an answer to a send still in
 * flight (router.ts). (Receipts are receipts.ts's.)
 *
 * A page never waits for its hand-offs: each start or signal is issued in the workflow task that
 * reads the page (recorded in history, so the message may be marked read), and what comes of it
 * later (a waiter that has closed, a handler's result) is followed by owned work that holds the
 * hand-over to the next run until it is settled.
 */

/** What becomes of a handler's result: its operations, taken by the ops intake. */
export type HandlerResultSink = (workflowId: string, result: unknown) => Promise<void>;

export class Dispatcher {
  private takeResult: HandlerResultSink = () => Promise.resolve();

  constructor(private readonly rt: AgentRuntime) {}

  /** Where handlers' results go (the ops intake, built after the dispatcher). */
  onHandlerResult(sink: HandlerResultSink): void {
    this.takeResult = sink;
  }

  /**
   * Hands off a page's fresh messages in arrival order: every decision is taken now, every start
   * and signal issued now. An answer to a send in flight waits for it (quote-hold).
   */
  async messages(fresh: InboundMessage[]): Promise<void> {
    const { inFlight } = this.rt;
    // (No await when there is nothing to wait for: it would move the page's commands.)
    if (pageWaits(this.quoteView(), fresh)) {
      // (Not past a reconciliation's start: it needs the poll loop's next poll to decide the send.)
      await condition(() => inFlight.current === undefined || inFlight.reconciling > 0);
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
      this.rt.router.register({ workflowId, waitId }, questionId, nextToo, answers, label);
      return Promise.resolve();
    }
    // A wait that ended after a message was routed to it hands the message back.
    const back = this.rt.router.end({ workflowId, waitId }, lateText);
    if (back) this.route(back.message, back.seq);
    return Promise.resolve();
  }

  /** Hands `message` (arrival `seq`) to exactly one place (see router.ts). */
  private route(message: InboundMessage, seq: number): void {
    const to = destinationOf(this.rt.router, message);
    switch (to.kind) {
      case 'late':
        return this.follow(this.late(message, seq, to.late));
      case 'choice':
        return this.choice(message, seq, to.choice);
      case 'which':
        return this.askWhichOne(message, message, to.waits);
      case 'waiters': {
        const waiter = this.rt.router.take(message);
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
      const again = askAgain(this.rt.router, choice);
      if ('waits' in again) this.askWhichOne(message, choice.list.answer, again.waits);
      else this.answer(message, 'which', again.text);
      return;
    }
    const waiter = this.rt.router.takeChoice(choice.workflowId);
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
    this.rt.router.whichOnes.asked(requestId, {
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

  /**
   * Starts the handler workflow of `message`, once: a duplicate start means it was handled. The
   * start is issued now; its outcome and the handler's result are followed in owned work.
   */
  private startHandler(message: InboundMessage, seq: number): void {
    const { rt } = this;
    // Past the inbound budget (a flood): not handled, marked read; the human is told once.
    const admitted = rt.inbound.admit(rt.now());
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
    rt.order.hold(seq, rt.now());
    rt.children.starting(workflowId);
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
        rt.children.started(workflowId);
        countHandlerStart(rt.agentKey);
        return handle;
      },
      (err: unknown) => {
        rt.children.gone(workflowId);
        rt.order.release(seq);
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
        rt.children.gone(workflowId);
        await this.takeResult(workflowId, result);
        // A handler with nothing to send ends its hold on later handlers' first replies.
        rt.order.release(seq);
      }),
    );
  }

  /** The agent's own answer to `message`, through the outbox; returns its request id. */
  private answer(message: InboundMessage, kind: string, text: string): string {
    const requestId = `${this.rt.workflowId}/${kind}/${message.id}`;
    this.rt.outbox.enqueue(
      { requestId, message: uncheckedTextMessage(text, { replyTo: message }) },
      'signal',
      this.rt.tally.lastSeq,
    );
    return requestId;
  }

  /** Holds `message` until the send now in flight has settled, then routes it. */
  private async holdThenRoute(message: InboundMessage, seq: number): Promise<void> {
    const { inFlight } = this.rt;
    const held = inFlight.current;
    await condition(() => inFlight.current !== held);
    this.route(message, seq);
  }

  private quoteView(): QuoteView {
    const { rt } = this;
    return {
      knowsSent: (id) => rt.ledger.knowsSent(id),
      waitsFor: (id) => rt.router.waitsFor(id),
      sending: rt.inFlight.current !== undefined,
      questionInFlight: rt.inFlight.questionInFlight,
      reconciling: rt.inFlight.reconciling > 0,
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
    private readonly sends: SendIntake,
    private readonly receipts: Receipts,
  ) {}

  /** The `amsflow.ops` signal: `from` hands over by signal from now on. */
  signal(arg: unknown): Promise<void> {
    const parsed = envelope.safeParse(arg);
    if (!parsed.success) {
      this.drop(schemaProblem(parsed.error));
      return Promise.resolve();
    }
    this.rt.children.gone(parsed.data.from);
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
    const { rt } = this;
    switch (op.op) {
      case 'send':
        this.sends.enqueue(op.request, 'signal');
        return undefined;
      case 'wait':
        return this.dispatcher.wait(op.request);
      case 'release':
        rt.order.release(op.seq);
        return undefined;
      case 'typing':
        rt.statuses.addTyping(op.messageId);
        return undefined;
      case 'receipts':
        this.receipts.watch(op.messageId, from);
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
