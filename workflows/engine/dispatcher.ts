/**
 * The dispatcher: the one part that hands inbound messages on. It numbers each arrival, carries
 * out where it goes (decided in destination.ts over the router), and is the only caller of the
 * inbound and late signals and of handler starts; it also sends each receipt to the workflow
 * whose message it is about, and holds an answer to a send still in flight (quote-hold.ts).
 */
import { ParentClosePolicy, condition, getExternalWorkflowHandle, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { handlerWorkflowId } from '../../protocol/ids';
import { inboundSignal, lateSignal, receiptSignal } from '../../protocol/messages';
import { uncheckedTextMessage } from '../author/builders';
import { countHandlerStart } from '../author/metrics';
import { EXPIRED_QUESTION_TEXT } from '../author/text';
import type { InboundMessage, RoutedMessage, Status, WaitRequest } from '../../protocol';
import { askAgain, destinationOf, NOT_WAITING_TEXT } from './destination';
import { mustHold, pageWaits, type QuoteView } from './quote-hold';
import type { LateAnswer, Waiter } from './router';
import type { AgentRuntime } from './runtime';
import { whichOneText, type WhichChoice } from './which-one';

export class Dispatcher {
  constructor(private readonly rt: AgentRuntime) {}

  /**
   * Hands off a page's fresh messages in arrival order. Every hand-off is issued at once (one
   * workflow task starts all the children); routing decisions are still taken in arrival order,
   * before the first await of each. An answer to a send in flight waits for it (quote-hold).
   */
  async messages(fresh: InboundMessage[]): Promise<void> {
    const { inFlight } = this.rt;
    // (No await when there is nothing to wait for: it would move the page's commands.)
    if (pageWaits(this.quoteView(), fresh)) {
      // (Not past a reconciliation's start: it needs the poll loop's next poll to decide the send.)
      await condition(() => inFlight.current === undefined || inFlight.reconciling > 0);
    }
    const view = this.quoteView();
    await Promise.all(
      fresh.map((message) => {
        const seq = this.rt.tally.arrival();
        if (!mustHold(view, message)) return this.route(message, seq);
        // Held in workflow state (continue-as-new waits for it): the page goes on without it.
        void this.rt.supervisor.own(this.holdThenRoute(message, seq));
        return Promise.resolve();
      }),
    );
  }

  /** A wait signal: registers the wait, or ends it and routes on what it had not taken. */
  async wait(req: WaitRequest): Promise<void> {
    const { workflowId, wait, waitId, questionId, nextToo, answerWords, label, lateText } = req;
    if (wait) {
      const answers = answerWords ? { words: answerWords, label: label ?? '' } : undefined;
      this.rt.router.register({ workflowId, waitId }, questionId, nextToo, answers);
      return;
    }
    // A wait that ended after a message was routed to it hands the message back.
    const back = this.rt.router.end({ workflowId, waitId }, lateText);
    if (back) await this.route(back.message, back.seq);
  }

  /** Sends a receipt to the workflow that sent the message it is about, if one is known. */
  receipt(status: Status): void {
    const { rt } = this;
    rt.tally.receipt();
    const requester = rt.ledger.receive(status, rt.now());
    if (!requester) return;
    rt.signals.track(
      getExternalWorkflowHandle(requester).signal(receiptSignal, {
        messageId: status.id,
        status: status.status,
        timestamp: status.timestamp,
      }),
    );
  }

  /** Hands `message` (arrival `seq`) to exactly one place (see destination.ts). */
  private async route(message: InboundMessage, seq: number): Promise<void> {
    const to = destinationOf(this.rt.router, message);
    switch (to.kind) {
      case 'late':
        return this.late(message, seq, to.late);
      case 'choice':
        return this.choice(message, seq, to.choice);
      case 'which':
        return this.askWhichOne(message, message, to.waits);
      case 'waiters':
        for (let waiter = this.rt.router.take(message); waiter; waiter = this.rt.router.take(message)) {
          if (await this.deliver(waiter, message, seq)) return;
        }
        return this.startHandler(message, seq);
    }
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
  private async choice(message: InboundMessage, seq: number, choice: WhichChoice): Promise<void> {
    if (choice.kind === 'again') {
      const again = askAgain(this.rt.router, choice);
      if ('waits' in again) this.askWhichOne(message, choice.list.answer, again.waits);
      else this.answer(message, 'which', again.text);
      return;
    }
    const waiter = this.rt.router.takeWordWaiter(choice.workflowId);
    if (waiter && (await this.deliver(waiter, choice.answer, seq))) return;
    this.answer(message, 'which', NOT_WAITING_TEXT);
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

  /** Starts the handler workflow of `message`, once: a duplicate start means it was handled. */
  private async startHandler(message: InboundMessage, seq: number): Promise<void> {
    const { rt } = this;
    // Holds later handlers' first replies back until this one has sent its own.
    rt.order.hold(seq, rt.now());
    try {
      await startChild(rt.input.handlerWorkflowType ?? 'onMessage', {
        workflowId: handlerWorkflowId(rt.agentKey, message.id),
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
      countHandlerStart(rt.agentKey);
    } catch (err) {
      rt.order.release(seq);
      // Started before (a replayed page, a run before continue-as-new): already handled.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
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

  /** Holds `message` until the send now in flight has settled, then routes it; holds the hand-over. */
  private async holdThenRoute(message: InboundMessage, seq: number): Promise<void> {
    const { inFlight } = this.rt;
    const held = inFlight.current;
    const release = this.rt.lifecycle.hold();
    try {
      await condition(() => inFlight.current !== held);
      await this.route(message, seq);
    } finally {
      release();
    }
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
