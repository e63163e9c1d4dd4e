/**
 * The sender (`Sender`): the one door into the outbox (the `send` update, a conversation's send
 * operations and the agent's own answers, checked at the edge), the outbox loop that sends them
 * one at a time, what a requester hears of its send, the ledger of sends and receipts, and the
 * status loops (mark-reads, typing) on the statuses window. Its queue is outbox.ts, its ledger
 * receipts.ts, its status policy statuses.ts.
 */
import { ApplicationFailure } from '@temporalio/common';
import { condition, getExternalWorkflowHandle, log } from '@temporalio/workflow';
import type { SendOutcome, SendRequest, Status } from '../../protocol/conversations';
import { AGENT_MOVING, type SendFailureType } from '../../protocol/failures';
import { reportOutbox, countSendFailure, type OutboxView } from '../author/metrics';
import { sendResultSignal } from '../../protocol/messages';
import type { MarkReadReport } from '../../activities/mark-reads';
import { SlidingWindow } from '../../core/sliding-window';
import type { AgentRuntime, SenderParts } from './runtime';
import {
  failureInfo,
  sendVerdict,
  type FailureInfo,
  refusalOf,
  refusedOutcome,
  FRESH_RETRY_STATE,
  backoffMs,
  retryAfterRejection,
  retryAllowed,
  type RetryState,
} from './request-policy';
import { Outbox, type Queued, SendInFlight } from './outbox';
import type { SignalTracker } from './lifecycle';
import type { FirstReplyTurns } from './handlers';
import { ReceiptLedger } from './receipts';
import type { Waiter } from './router';
import { rideReport, StatusQueue } from './statuses';

/**
 * The shape check of a send request, at the outbox's edge. Pure: the `send` update's validator
 * rejects a bad request before it enters history, and a bad `sendRequest` signal is answered
 * with a `SendInvalid` outcome instead of being dropped.
 */

/**
 * The refusal of a send update while the run drains before continue-as-new (`AGENT_MOVING`):
 * the caller sends again, to the next run.
 */
export function refuseWhileMoving(draining: boolean): void {
  if (!draining) return;
  throw ApplicationFailure.create({
    type: AGENT_MOVING,
    message: 'the agent is moving to its next run (continue-as-new): send again',
    nonRetryable: true,
  });
}

/** Why `req` is not a usable send request, or undefined when it is. */
export function sendRequestProblem(req: unknown): string | undefined {
  if (typeof req !== 'object' || req === null) return 'a send request must be an object';
  const r = req as Partial<SendRequest>;
  if (typeof r.requestId !== 'string' || r.requestId.length === 0)
    return 'a send request needs a non-empty requestId';
  if (typeof r.message !== 'object' || r.message === null || typeof r.message.type !== 'string') {
    return 'a send request needs a message with a type';
  }
  if (r.requester !== undefined && typeof r.requester !== 'string') return 'requester must be a workflow id';
  if (r.onlyWhileWaiting !== undefined && (typeof r.onlyWhileWaiting !== 'number' || !r.requester)) {
    return 'onlyWhileWaiting must be a wait id of the requester';
  }
  return undefined;
}

/** The outcome a malformed request gets: it was not sent. */
export function invalidRequestOutcome(problem: string): SendOutcome {
  return {
    ok: false,
    type: 'SendInvalid',
    message: `Malformed send request: ${problem}; nothing was sent.`,
    attempts: 0,
  };
}

/**
 * What the sender asks of the dispatcher (which owns the routing and the first-reply order): the
 * turns a queued send waits for, and what becomes of a sent question or "which one?" list.
 */
export interface SendRoutes {
  /** The first-reply turns of the handlers (handlers.ts): the outbox asks them before each send. */
  readonly firstReplyTurns: FirstReplyTurns;
  /** A handler's first request has entered the outbox: its turn is over. */
  firstReplied(seq: number): void;
  /** `req` was sent as `messageId`: a "which one?" list is found by it, a question waits for its reply. */
  replySent(req: Queued, messageId: string): void;
  /** The question the wait of `waiter` is for, if any. */
  questionOf(waiter: Waiter): string | undefined;
  /** Whether `waiter` still waits. */
  isWaiting(waiter: Waiter): boolean;
}

/** What the sender asks of the poller (which owns the cursor and the open poll). */
export interface SendPolls {
  /** The human the agent writes to, once known (the first poll may discover them). */
  readonly recipient: string | undefined;
  readonly firstPollDone: boolean;
  /** A send's answer named the recipient. */
  sawRecipient(recipient: string): void;
  /** When the last completed poll started (workflow time): a reconciliation's fence. */
  readonly lastPollStartedAt: number;
  /** Ends the open poll if it is quiet, so that the next poll starts now. */
  endQuietPoll(): void;
}

/** Where a send request comes from: an update caller, a conversation, or the agent's own answer. */
export type SendDoor = 'update' | 'signal' | 'agent';

/**
 * The sender: the one owner of what leaves the agent. It owns the outbox (outbox.ts), the send in
 * flight, the ledger of sends and receipts (receipts.ts), the status queue of mark-reads and typing
 * (statuses.ts) and the messages, statuses and typing windows; it runs the outbox loop and the
 * two status loops. Send requests enter only by `enqueue` (checked at the edge, taken once per
 * request id: a request id seen before gets the outcome it had, never a second send); the others
 * ask it what they need to know (the attempt in flight, a sent id, the watched receipts).
 */
export class Sender {
  private readonly outbox: Outbox;
  private readonly inFlight = new SendInFlight();
  private readonly ledger: ReceiptLedger;
  private readonly statuses: StatusQueue;
  private readonly windows: SenderParts['windows'];
  /** The dispatcher, asked of routing and first-reply turns (`routesTo`: it is built after). */
  private routes!: SendRoutes;
  /** What the outbox metrics read (`reportOutbox`). */
  private readonly outboxView: OutboxView;

  constructor(
    private readonly rt: AgentRuntime,
    private readonly polls: SendPolls,
  ) {
    const { tuning, input } = rt;
    const { limits, carried } = input;
    this.outbox = new Outbox(
      {
        recentIdsKept: tuning.recentIdsKept,
        maxQueued: tuning.maxQueuedSends,
        maxQueuedBytes: tuning.maxQueuedSendBytes,
      },
      carried,
      rt.tally.lastSeq,
    );
    this.ledger = new ReceiptLedger(tuning.recentIdsKept, carried);
    this.windows = {
      messages: new SlidingWindow(limits.messages, limits.windowMs, carried?.windows.messages),
      statuses: new SlidingWindow(limits.statuses, limits.windowMs, carried?.windows.statuses),
      typing: new SlidingWindow(limits.typing, limits.windowMs, carried?.windows.typing),
    };
    this.statuses = new StatusQueue(
      {
        maxPending: tuning.maxPendingMarkRead,
        maxTyping: tuning.maxQueuedTyping,
        giveUpMs: tuning.markReadGiveUpMs,
        graceMs: tuning.markReadGraceMs,
        unknownRetryBaseMs: tuning.backoffBaseMs,
      },
      this.windows.statuses,
      carried,
    );
    this.outboxView = {
      agentKey: rt.agentKey,
      outbox: this.outbox,
      windows: this.windows,
      input,
      now: () => rt.now(),
    };
  }

  /** The dispatcher this sender asks of routing and first-reply turns. */
  routesTo(routes: SendRoutes): void {
    this.routes = routes;
  }

  // The door into the outbox.

  /** The `send` update (already validated): queues `req` and waits for its outcome. */
  async update(req: SendRequest): Promise<SendOutcome> {
    const { outbox } = this;
    this.enqueue(req, 'update');
    await condition(() => outbox.outcomes.has(req.requestId));
    return outbox.outcomes.get(req.requestId)!;
  }

  /**
   * The one door into the outbox: queues `req` once (a known id is answered with its outcome, if
   * its requester asked for it). A conversation's request (`signal`) refused at once is told to
   * its requester, or reported; the agent's own answer (`agent`) goes as a `signal` request whose
   * refusal nobody hears.
   */
  enqueue(req: SendRequest, door: SendDoor): void {
    const { rt } = this;
    const via = door === 'agent' ? 'signal' : door;
    if (door === 'agent') {
      this.outbox.enqueue(req, via, rt.tally.lastSeq);
      return;
    }
    const known = this.outbox.outcomes.get(req.requestId);
    if (known) {
      if (via === 'signal' && req.requester && wantsToHear(req, known))
        notifyRequester(rt.signals, req.requester, req.requestId, known);
      return;
    }
    const taken = this.outbox.enqueue(req, via, rt.tally.lastSeq);
    reportOutbox(this.outboxView);
    // A handler's first request ends its hold on later handlers' first replies.
    if (taken !== 'duplicate' && req.handlerSeq !== undefined) this.routes.firstReplied(req.handlerSeq);
    if (typeof taken === 'object') {
      if (via === 'signal' && req.requester && wantsToHear(req, taken.refused))
        notifyRequester(rt.signals, req.requester, req.requestId, taken.refused);
      else if (via === 'signal') this.sendFailed(req, taken.refused);
    }
  }

  // What the others ask of it.

  /** A request is being sent (the outbox's): continue-as-new waits for it. */
  get sending(): boolean {
    return this.outbox.sending !== undefined;
  }

  /** An update caller waits for its outcome in this run. */
  get hasUpdateCallers(): boolean {
    return this.outbox.hasUpdateCallers;
  }

  /** The request whose attempt may have reached the service, if any (the quote hold). */
  get attempting(): Queued | undefined {
    return this.inFlight.current;
  }

  /** Whether the send in flight is a question that takes the human's next message or bare words. */
  get questionInFlight(): boolean {
    return this.inFlight.questionInFlight;
  }

  /** A reconciliation waits for a poll after its fence: polls are not quiet meanwhile. */
  get reconciling(): boolean {
    return this.inFlight.reconciling > 0;
  }

  /** Whether a send of ours is known to have returned `messageId`. */
  knowsSent(messageId: string): boolean {
    return this.ledger.knowsSent(messageId);
  }

  /** The watched message ids (the poll activity brings their receipts back at once). */
  watchedReceipts(): string[] {
    return this.ledger.watched();
  }

  /** Records a receipt seen at `at`; returns the workflow it goes to, if any watches it. */
  receiptSeen(status: Status, at: number): string | undefined {
    return this.ledger.receive(status, at);
  }

  /** `workflowId` watches `messageId`'s receipts; returns the status already reached, if any. */
  watchReceipts(messageId: string, workflowId: string): Status | undefined {
    return this.ledger.watch(messageId, workflowId);
  }

  /** Message `messageId`, handed on at `now`, is to be marked read. */
  markRead(messageId: string, now: number): void {
    this.statuses.addMarkRead(messageId, now);
  }

  /** A conversation shows typing for `messageId`. */
  typing(messageId: string): void {
    this.statuses.addTyping(messageId);
  }

  /** What `amsflow state` shows of the sender. */
  get view(): {
    queueLength: number;
    sending?: string;
    pendingMarkRead: number;
    markReadDropped: number;
    receiptsDropped: number;
  } {
    return {
      queueLength: this.outbox.length,
      sending: this.outbox.sending?.requestId,
      pendingMarkRead: this.statuses.pendingMarkRead,
      markReadDropped: this.statuses.dropped,
      receiptsDropped: this.ledger.dropped,
    };
  }

  /** The sender's slice of the carried state. */
  carriedParts(): SenderParts {
    return { outbox: this.outbox, ledger: this.ledger, statuses: this.statuses, windows: this.windows };
  }

  // The outbox loop.

  /**
   * The outbox loop: takes the next request the outbox allows, sends it (one attempt per
   * activity, paced by the messages window, the mark-reads due riding with it: read, then answer),
   * retries what the send policy says may be retried, settles ambiguous attempts only as the
   * request opted in, and hands the outcome back.
   */
  async sendLoop(): Promise<never> {
    const { rt } = this;
    const { lifecycle } = rt;
    const turns = () => this.routes.firstReplyTurns;
    const next = () =>
      lifecycle.pollEnding ? undefined : this.outbox.next(turns(), rt.now(), lifecycle.draining);
    const ready = () => next() !== undefined;
    const heldBack = () => !lifecycle.pollEnding && this.outbox.heldBack(turns());
    for (;;) {
      // A timer only while a request waits for an earlier handler's first-reply turn to expire:
      // idle, or with nothing held back, the loop costs no timer and no workflow task at all.
      const waiting = heldBack();
      const expiry = waiting ? turns().nextExpiry(rt.now()) : undefined;
      if (expiry === undefined) await condition(() => ready() || (!waiting && heldBack()));
      else if (!(await condition(ready, expiry))) continue;
      // Re-evaluated: another coroutine (draining for continue-as-new) may have run since.
      const req = next();
      if (!req) continue;
      this.outbox.start(req);
      reportOutbox(this.outboxView);
      const outcome = await this.sendOne(req);
      this.outbox.finish(req, outcome);
      this.settle(req, outcome);
      this.inFlight.settled();
      reportOutbox(this.outboxView);
    }
  }

  /**
   * Books an outcome: counters, the sent id, the reply wait of a question, and the requester (told
   * only when it asked; a failure nobody is told of is reported to operators instead).
   */
  private settle(req: Queued, outcome: SendOutcome): void {
    const { rt } = this;
    rt.tally.sent(outcome.ok);
    // A nudge whose wait was answered is not a failure: it is not needed any more.
    const failed = !outcome.ok && outcome.type !== 'NotWaiting';
    if (failed) countSendFailure(rt.agentKey, outcome.type);
    if (outcome.ok) {
      this.ledger.sent(outcome.messageId);
      this.routes.replySent(req, outcome.messageId);
    }
    if (req.via !== 'signal') return;
    if (req.requester && wantsToHear(req, outcome))
      notifyRequester(rt.signals, req.requester, req.requestId, outcome);
    else if (failed) this.sendFailed(req, outcome);
  }

  /**
   * A send request given up whose requester is not told (it did not ask): logged once, counted,
   * and kept for `amsflow state`, so that no failure goes unseen.
   */
  private sendFailed(req: { requestId: string; requester?: string }, outcome: SendOutcome): void {
    if (outcome.ok) return;
    const { rt } = this;
    const at = new Date(rt.now()).toISOString();
    rt.status.sendFailed({
      requestId: req.requestId,
      ...(req.requester ? { requester: req.requester } : {}),
      type: outcome.type,
      at,
    });
    log.warn(
      `agent ${rt.agentKey}: a send of ${req.requester ?? 'an outside caller'} was given up (${outcome.type}): ${outcome.message}`,
      { agentKey: rt.agentKey, requestId: req.requestId, type: outcome.type },
    );
  }

  private async sendOne(req: Queued): Promise<SendOutcome> {
    const { rt, polls } = this;
    let retry = FRESH_RETRY_STATE;
    let notBefore: number | undefined;
    for (;;) {
      const { attempts } = retry;
      // Stopped by a refusal (its token refused): nothing can be sent; the caller learns it now.
      if (rt.status.refusal) return refusedOutcome(rt.status.refusal, attempts);
      if (!polls.recipient) {
        const none = await this.noRecipient(attempts);
        if (none) return none;
      }
      if (!this.stillWanted(req)) return notWaiting(attempts);
      const confirm = await rt.pace(this.windows.messages, { notBefore });
      // Read, then answer: mark-reads under way by a request of their own (a message past its grace,
      // a vehicle that told nothing, a run just begun) are let finish first; the rest ride along.
      if (this.statuses.underWay) await condition(() => !this.statuses.underWay);
      // Checked again after the waits: the answer may have come meanwhile. (The window keeps the
      // slot it reserved: one record too many is the safe side.)
      if (!this.stillWanted(req)) return notWaiting(attempts);
      const attemptAt = rt.now();
      retry = { ...retry, attempts: attempts + 1 };
      this.inFlight.attempt(req);
      const attemptId = `${req.requestId}#${retry.attempts}`;
      const markRead = this.statuses.forSend(attemptId, attemptAt);
      try {
        const result = await rt.acts.send.sendMessage({
          agentKey: rt.agentKey,
          to: polls.recipient!,
          message: this.outgoing(req),
          attemptId,
          ...(markRead.length > 0 ? { markRead } : {}),
        });
        confirm(rt.now());
        // (None reported: the attempt told nothing of them, and they go again at once.)
        this.markReadsRode(attemptId, result.markRead);
        if (result.recipient) polls.sawRecipient(result.recipient);
        // (The id becomes known only when the outcome is settled, `settle`, with its question's
        // wait: known sooner, a reply to it on a page handled in between would not wait for that.)
        return { ok: true, messageId: result.messageId, attempts: retry.attempts };
      } catch (err) {
        confirm(rt.now());
        rt.noteError('send', err);
        const info = failureInfo(err);
        this.markReadsRode(attemptId, info.details?.markRead);
        let after = this.afterFailure(req, retry, info, attemptAt);
        if ('reconcile' in after) after = await this.afterReconcile(retry, info, attemptAt);
        if ('outcome' in after) return after.outcome;
        retry = after.retry;
        notBefore = after.notBefore;
      }
    }
  }

  /**
   * Waits for a recipient (the first poll may discover one). Undefined once one is known; else the
   * outcome now: stopped by a refusal meanwhile, or none known after the first poll.
   */
  private async noRecipient(attempts: number): Promise<SendOutcome | undefined> {
    const { polls } = this;
    const { status } = this.rt;
    await condition(
      () => polls.recipient !== undefined || polls.firstPollDone || status.refusal !== undefined,
    );
    if (status.refusal) return refusedOutcome(status.refusal, attempts);
    if (polls.recipient) return undefined;
    return {
      ok: false,
      type: 'NoRecipient',
      message:
        'No recipient is known yet: the human has not written to this agent, and discovery found none.',
      attempts,
    };
  }

  /** Decides a failed attempt by the send policy: retry (when), reconcile, or give up (how). */
  private afterFailure(
    req: Queued,
    retry: RetryState,
    info: FailureInfo,
    attemptAt: number,
  ): AfterFailure | { reconcile: true } {
    const { rt } = this;
    const random = () => Math.random(); // Seeded per run by the SDK: the same on replay.
    const verdict = sendVerdict(info);
    const max = rt.tuning.maxSendAttempts;
    // Refused, not sent: nothing the human could have seen (an ambiguous attempt stays).
    if (verdict.kind !== 'ambiguous') this.inFlight.settled();
    if (verdict.kind === 'final') {
      const refusal = refusalOf(rt.agentKey, 'send', info, new Date(rt.now()).toISOString());
      // Refused with the token before the last resume (a worker with a new one started): nothing
      // was sent, and the new token is tried at once.
      if (refusal && rt.status.predatesResume(attemptAt) && retryAllowed(retry, 'rejection', max))
        return { retry, notBefore: rt.now() };
      if (refusal) rt.halt(refusal, attemptAt);
      return failed(retry, verdict.type, info.message);
    }
    if (verdict.kind === 'rejected') {
      if (!retryAllowed(retry, 'rejection', max)) return failed(retry, 'SendRejected', info.message);
      const next = retryAfterRejection(retry, verdict.rejection, rt.tuning, random);
      return { retry: next.state, notBefore: rt.now() + next.waitMs };
    }
    if (req.retryAmbiguous && retryAllowed(retry, 'resend', max)) {
      const notBefore = rt.now() + backoffMs(retry.transient, rt.tuning, random);
      return { retry: { ...retry, transient: retry.transient + 1, resends: retry.resends + 1 }, notBefore };
    }
    if (req.reconcileAmbiguous) return { reconcile: true };
    return ambiguous(retry, info);
  }

  /** An ambiguous attempt the request opted into reconciling: decided from the receipts. */
  private async afterReconcile(
    retry: RetryState,
    info: FailureInfo,
    attemptAt: number,
  ): Promise<AfterFailure> {
    const accepted = await this.reconcile(attemptAt);
    if (accepted) return { outcome: { ok: true, messageId: accepted, attempts: retry.attempts } };
    // Proven not accepted: sending it now cannot make a duplicate.
    if (retryAllowed(retry, 'resend', this.rt.tuning.maxSendAttempts))
      return { retry: { ...retry, resends: retry.resends + 1 } };
    return ambiguous(retry, info);
  }

  /** The message as it leaves: a nudge that asks for it quotes the question its wait is for. */
  private outgoing(req: Queued): Queued['message'] {
    if (!req.quoteQuestion || !req.requester || req.onlyWhileWaiting === undefined) return req.message;
    const questionId = this.routes.questionOf({ workflowId: req.requester, waitId: req.onlyWhileWaiting });
    return questionId ? { ...req.message, context: { message_id: questionId } } : req.message;
  }

  /** False for a nudge (`onlyWhileWaiting`) whose wait was answered or has ended. */
  private stillWanted(req: Queued): boolean {
    if (req.onlyWhileWaiting === undefined || !req.requester) return true;
    return this.routes.isWaiting({ workflowId: req.requester, waitId: req.onlyWhileWaiting });
  }

  /**
   * Decides an ambiguous attempt from the service's own receipts (see `ReceiptLedger.claimable`).
   * If no 'sent' receipt has appeared once `reconcileSettleMs` have passed and a later poll has
   * read the sequence, the attempt was not accepted. Returns the accepted message id, or undefined.
   */
  private async reconcile(attemptAt: number): Promise<string | undefined> {
    const { rt, polls, ledger } = this;
    const fence = rt.now() + rt.tuning.reconcileSettleMs;
    const done = this.inFlight.reconcile();
    // A quiet poll open now started before the fence: it gives way to one that starts after it.
    polls.endQuietPoll();
    try {
      await condition(() => ledger.claimable(attemptAt) !== undefined || polls.lastPollStartedAt >= fence);
    } finally {
      done();
    }
    // Claimed when the outcome is settled (`settle`), as a plain send's id is.
    return ledger.claimable(attemptAt);
  }

  // The status loops, on the statuses endpoint's own windows so they never delay a reply:
  // - mark-reads that no send took within the grace (a message with no reply yet), or that a
  //   vehicle told nothing of, go by a request of their own, paced by the statuses window (most
  //   ride with the reply's send instead: statuses.ts);
  // - typing indicators, on the typing counter: shown at once or not at all; one shown marks its
  //   message read too.

  /**
   * Books what vehicle `vehicle` (a send attempt, or a mark-read request of its own) did with its
   * mark-reads; none reported (it timed out, its worker died, it failed before it could say) sends
   * them again at once. A refusal for good is logged once, here, and dropped.
   */
  private markReadsRode(vehicle: string, report: MarkReadReport | undefined): void {
    const { rt } = this;
    this.statuses.rode(vehicle, rt.now(), report ? rideReport(report, rt.tuning) : undefined);
    if (report?.refused.length)
      log.warn(
        `agent ${rt.agentKey}: the service refused to mark ${report.refused.length} message(s) read; given up`,
        { agentKey: rt.agentKey, messageIds: report.refused },
      );
  }

  /**
   * The mark-read loop. Runs until continue-as-new begins (the mark-reads left are carried, due at
   * once in the next run). A request under way is awaited: the hand-over waits for this loop.
   */
  async markReadLoop(): Promise<void> {
    const { rt } = this;
    for (let n = 1; ; n++) {
      if (!(await this.untilOwnDue())) return;
      const vehicle = `read#${n}`;
      const messageIds = this.statuses.forOwn(vehicle, rt.now());
      if (messageIds.length === 0) continue;
      try {
        const report = await rt.acts.status.markRead({ agentKey: rt.agentKey, messageIds });
        this.markReadsRode(vehicle, report);
      } catch (err) {
        this.markReadsRode(vehicle, undefined);
        rt.noteError('status', err);
      }
    }
  }

  /**
   * Waits until a mark-read is due for a request of its own; false once continue-as-new begins. A
   * timer only while one waits for its time (and it is cancelled when a send takes it first): idle,
   * the loop costs nothing. Stopped by a refusal, mark-reads wait (they would be refused as well).
   */
  private async untilOwnDue(): Promise<boolean> {
    const { rt, statuses } = this;
    const { lifecycle, status } = rt;
    for (;;) {
      if (lifecycle.draining) return false;
      if (status.refusal) {
        await condition(() => lifecycle.draining || status.refusal === undefined);
        continue;
      }
      const at = statuses.ownDueAt(rt.now());
      if (at !== undefined && at <= rt.now()) return true;
      const changed = () =>
        lifecycle.draining || status.refusal !== undefined || statuses.ownDueAt(rt.now()) !== at;
      if (at === undefined) await condition(changed);
      else await condition(changed, at - rt.now());
    }
  }

  /** The typing loop. Runs until continue-as-new begins (pending typing indicators are dropped: they would be late). */
  async typingLoop(): Promise<void> {
    const { rt, statuses, windows } = this;
    for (;;) {
      // Stopped by a refusal: typing waits too (it would be refused as well).
      await condition(() => rt.lifecycle.draining || (statuses.hasTyping && rt.status.refusal === undefined));
      if (rt.lifecycle.draining) return;
      const typingId = statuses.takeTyping()!;
      // A late typing indicator is worse than none: skip it when the budget is spent.
      if (windows.typing.delay(rt.now()) > 0) continue;
      const confirm = windows.typing.record(rt.now());
      try {
        await rt.acts.status.sendTyping({ agentKey: rt.agentKey, messageId: typingId });
        confirm(rt.now());
        statuses.typed(typingId);
      } catch (err) {
        confirm(rt.now());
        rt.noteError('status', err);
      }
    }
  }
}

/** What to do after a failed attempt: try again after `notBefore`, or end with `outcome`. */
type AfterFailure = { retry: RetryState; notBefore?: number } | { outcome: SendOutcome };

function failed(retry: RetryState, type: SendFailureType, message: string): AfterFailure {
  return { outcome: { ok: false, type, message, attempts: retry.attempts } };
}

function ambiguous(retry: RetryState, info: FailureInfo): AfterFailure {
  const reason = info.timedOut ? 'the send activity timed out (worker lost mid-send?)' : info.message;
  return failed(
    retry,
    'AmbiguousSend',
    `It is unknown whether the message was sent (${reason}); it was not sent again.`,
  );
}

function notWaiting(attempts: number): SendOutcome {
  return {
    ok: false,
    type: 'NotWaiting',
    message: 'Not sent: the wait it was for was answered or has ended.',
    attempts,
  };
}

/**
 * What a requesting workflow hears of its send request: the outcome, only when it asked for it
 * (`SendRequest.notify`), as an `amsflow.sendResult` signal the agent does not wait for.
 */

/** Whether the requester of `req` is told `outcome`. Pure. */
export function wantsToHear(req: Pick<SendRequest, 'notify'>, outcome: SendOutcome): boolean {
  return req.notify === 'outcome' || (req.notify === 'failure' && !outcome.ok);
}

/** Tells `requester` the outcome of its request `requestId`. */
export function notifyRequester(
  signals: SignalTracker,
  requester: string,
  requestId: string,
  outcome: SendOutcome,
): void {
  signals.track(getExternalWorkflowHandle(requester).signal(sendResultSignal, { requestId, outcome }));
}
