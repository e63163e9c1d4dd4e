/**
 * The sender at work: where send requests enter (the one door into the outbox: the `send` update
 * and a conversation's send operations, checked at the edge), the outbox loop that sends them one
 * at a time, what a requester hears of its send, and the status loops (mark-reads, typing) on the
 * statuses window. Its queue is outbox.ts, its status policy statuses.ts.
 */
import { ApplicationFailure } from '@temporalio/common';
import { condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import { type SendOutcome, type SendRequest } from '../../protocol/conversations';
import { AGENT_MOVING, type SendFailureType } from '../../protocol/failures';
import { reportOutbox, countSendFailure } from '../author/metrics';
import { sendResultSignal } from '../../protocol/messages';
import type { AgentRuntime } from './runtime';
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
import type { Queued } from './outbox';
import type { SignalTracker } from './lifecycle';

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
 * Where send requests enter the outbox: the `send` update (its caller waits for the outcome) and
 * a conversation's send operations (dispatcher.ts; the requester hears the outcome only when it
 * asked, `notify`). A request id seen before gets the outcome it had, never a second send.
 */

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

/**
 * The outbox loop: takes the next request the outbox allows, sends it (one attempt per
 * activity, paced by the messages window, the mark-reads due riding with it: read, then answer),
 * retries what the send policy says may be retried, settles ambiguous attempts only as the
 * request opted in, and hands the outcome back. Owns the send in flight (outbox.ts).
 */

export async function runOutbox(rt: AgentRuntime): Promise<never> {
  const { lifecycle } = rt;
  const next = () =>
    lifecycle.pollEnding ? undefined : rt.outbox.next(rt.order, rt.now(), lifecycle.draining);
  const ready = () => next() !== undefined;
  const heldBack = () => !lifecycle.pollEnding && rt.outbox.heldBack(rt.order);
  for (;;) {
    // A timer only while a request waits for an earlier handler's first-reply turn to expire:
    // idle, or with nothing held back, the loop costs no timer and no workflow task at all.
    const waiting = heldBack();
    const expiry = waiting ? rt.order.nextExpiry(rt.now()) : undefined;
    if (expiry === undefined) await condition(() => ready() || (!waiting && heldBack()));
    else if (!(await condition(ready, expiry))) continue;
    // Re-evaluated: another coroutine (draining for continue-as-new) may have run since.
    const req = next();
    if (!req) continue;
    rt.outbox.start(req);
    reportOutbox(rt);
    const outcome = await sendOne(rt, req);
    rt.outbox.finish(req, outcome);
    settle(rt, req, outcome);
    rt.inFlight.settled();
    reportOutbox(rt);
  }
}

/**
 * Books an outcome: counters, the sent id, the reply wait of a question, and the requester (told
 * only when it asked; a failure nobody is told of is reported to operators instead).
 */
function settle(rt: AgentRuntime, req: Queued, outcome: SendOutcome): void {
  rt.tally.sent(outcome.ok);
  // A nudge whose wait was answered is not a failure: it is not needed any more.
  const failed = !outcome.ok && outcome.type !== 'NotWaiting';
  if (failed) countSendFailure(rt.agentKey, outcome.type);
  if (outcome.ok) {
    rt.ledger.sent(outcome.messageId);
    // A "which one?" list is found by the id a reply to it quotes.
    rt.router.whichOnes.sent(req.requestId, outcome.messageId);
    if (req.requester && req.expectReply) {
      const answers = req.answerWords
        ? { words: req.answerWords, label: req.answerLabel ?? '', askedBy: req.askedBy }
        : undefined;
      rt.router.register(
        { workflowId: req.requester, waitId: req.waitId },
        outcome.messageId,
        req.waitNextToo ?? true,
        answers,
        // "Which one?" lists the wait by its question, as the human read it.
        req.answerLabel ?? req.message.text?.body,
      );
    }
  }
  if (req.via !== 'signal') return;
  if (req.requester && wantsToHear(req, outcome))
    notifyRequester(rt.signals, req.requester, req.requestId, outcome);
  else if (failed) rt.sendFailed(req, outcome);
}

/** What to do after a failed attempt: try again after `notBefore`, or end with `outcome`. */
type AfterFailure = { retry: RetryState; notBefore?: number } | { outcome: SendOutcome };

async function sendOne(rt: AgentRuntime, req: Queued): Promise<SendOutcome> {
  let retry = FRESH_RETRY_STATE;
  let notBefore: number | undefined;
  for (;;) {
    const { attempts } = retry;
    // Stopped by a refusal (its token refused): nothing can be sent; the caller learns it now.
    if (rt.status.refusal) return refusedOutcome(rt.status.refusal, attempts);
    if (!rt.cursor.recipient) {
      const none = await noRecipient(rt, attempts);
      if (none) return none;
    }
    if (!stillWanted(rt, req)) return notWaiting(attempts);
    const confirm = await rt.pace(rt.windows.messages, { notBefore });
    // Read, then answer: mark-reads under way by a request of their own (a message past its grace,
    // a vehicle that told nothing, a run just begun) are let finish first; the rest ride along.
    if (rt.statuses.underWay) await condition(() => !rt.statuses.underWay);
    // Checked again after the waits: the answer may have come meanwhile. (The window keeps the
    // slot it reserved: one record too many is the safe side.)
    if (!stillWanted(rt, req)) return notWaiting(attempts);
    const attemptAt = rt.now();
    retry = { ...retry, attempts: attempts + 1 };
    rt.inFlight.attempt(req);
    const attemptId = `${req.requestId}#${retry.attempts}`;
    const markRead = rt.statuses.forSend(attemptId, attemptAt);
    try {
      const result = await rt.acts.send.sendMessage({
        agentKey: rt.agentKey,
        to: rt.cursor.recipient!,
        message: outgoing(rt, req),
        attemptId,
        ...(markRead.length > 0 ? { markRead } : {}),
      });
      confirm(rt.now());
      // (None reported: the attempt told nothing of them, and they go again at once.)
      rt.markReadsRode(attemptId, result.markRead);
      if (result.recipient) rt.cursor.sawRecipient(result.recipient);
      // (The id becomes known only when the outcome is settled, `settle`, with its question's
      // wait: known sooner, a reply to it on a page handled in between would not wait for that.)
      return { ok: true, messageId: result.messageId, attempts: retry.attempts };
    } catch (err) {
      confirm(rt.now());
      rt.noteError('send', err);
      const info = failureInfo(err);
      rt.markReadsRode(attemptId, info.details?.markRead);
      let after = afterFailure(rt, req, retry, info, attemptAt);
      if ('reconcile' in after) after = await afterReconcile(rt, retry, info, attemptAt);
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
async function noRecipient(rt: AgentRuntime, attempts: number): Promise<SendOutcome | undefined> {
  const { cursor, status } = rt;
  await condition(
    () => cursor.recipient !== undefined || cursor.firstPollDone || status.refusal !== undefined,
  );
  if (status.refusal) return refusedOutcome(status.refusal, attempts);
  if (cursor.recipient) return undefined;
  return {
    ok: false,
    type: 'NoRecipient',
    message: 'No recipient is known yet: the human has not written to this agent, and discovery found none.',
    attempts,
  };
}

/** Decides a failed attempt by the send policy: retry (when), reconcile, or give up (how). */
function afterFailure(
  rt: AgentRuntime,
  req: Queued,
  retry: RetryState,
  info: FailureInfo,
  attemptAt: number,
): AfterFailure | { reconcile: true } {
  const random = () => Math.random(); // Seeded per run by the SDK: the same on replay.
  const verdict = sendVerdict(info);
  const max = rt.tuning.maxSendAttempts;
  // Refused, not sent: nothing the human could have seen (an ambiguous attempt stays).
  if (verdict.kind !== 'ambiguous') rt.inFlight.settled();
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
async function afterReconcile(
  rt: AgentRuntime,
  retry: RetryState,
  info: FailureInfo,
  attemptAt: number,
): Promise<AfterFailure> {
  const accepted = await reconcile(rt, attemptAt);
  if (accepted) return { outcome: { ok: true, messageId: accepted, attempts: retry.attempts } };
  // Proven not accepted: sending it now cannot make a duplicate.
  if (retryAllowed(retry, 'resend', rt.tuning.maxSendAttempts))
    return { retry: { ...retry, resends: retry.resends + 1 } };
  return ambiguous(retry, info);
}

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

/** The message as it leaves: a nudge that asks for it quotes the question its wait is for. */
function outgoing(rt: AgentRuntime, req: Queued): Queued['message'] {
  if (!req.quoteQuestion || !req.requester || req.onlyWhileWaiting === undefined) return req.message;
  const questionId = rt.router.questionOf({ workflowId: req.requester, waitId: req.onlyWhileWaiting });
  return questionId ? { ...req.message, context: { message_id: questionId } } : req.message;
}

/** False for a nudge (`onlyWhileWaiting`) whose wait was answered or has ended. */
function stillWanted(rt: AgentRuntime, req: Queued): boolean {
  if (req.onlyWhileWaiting === undefined || !req.requester) return true;
  return rt.router.isWaiting({ workflowId: req.requester, waitId: req.onlyWhileWaiting });
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
 * Decides an ambiguous attempt from the service's own receipts (see `ReceiptLedger.claimable`).
 * If no 'sent' receipt has appeared once `reconcileSettleMs` have passed and a later poll has
 * read the sequence, the attempt was not accepted. Returns the accepted message id, or undefined.
 */
async function reconcile(rt: AgentRuntime, attemptAt: number): Promise<string | undefined> {
  const fence = rt.now() + rt.tuning.reconcileSettleMs;
  const done = rt.inFlight.reconcile();
  // A quiet poll open now started before the fence: it gives way to one that starts after it.
  rt.poll.endQuiet();
  try {
    await condition(
      () => rt.ledger.claimable(attemptAt) !== undefined || rt.cursor.lastPollStartedAt >= fence,
    );
  } finally {
    done();
  }
  // Claimed when the outcome is settled (`settle`), as a plain send's id is.
  return rt.ledger.claimable(attemptAt);
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

/**
 * The status loops, on the statuses endpoint's own windows so they never delay a reply:
 * - mark-reads that no send took within the grace (a message with no reply yet), or that a
 *   vehicle told nothing of, go by a request of their own, paced by the statuses window (most
 *   ride with the reply's send instead: statuses.ts);
 * - typing indicators, on the typing counter: shown at once or not at all; one shown marks its
 *   message read too.
 */

/**
 * Runs until continue-as-new begins (the mark-reads left are carried, due at once in the next
 * run). A request under way is awaited: the hand-over waits for this loop.
 */
export async function runMarkReadLoop(rt: AgentRuntime): Promise<void> {
  for (let n = 1; ; n++) {
    if (!(await untilOwnDue(rt))) return;
    const vehicle = `read#${n}`;
    const messageIds = rt.statuses.forOwn(vehicle, rt.now());
    if (messageIds.length === 0) continue;
    try {
      const report = await rt.acts.status.markRead({ agentKey: rt.agentKey, messageIds });
      rt.markReadsRode(vehicle, report);
    } catch (err) {
      rt.markReadsRode(vehicle, undefined);
      rt.noteError('status', err);
    }
  }
}

/**
 * Waits until a mark-read is due for a request of its own; false once continue-as-new begins. A
 * timer only while one waits for its time (and it is cancelled when a send takes it first): idle,
 * the loop costs nothing. Stopped by a refusal, mark-reads wait (they would be refused as well).
 */
async function untilOwnDue(rt: AgentRuntime): Promise<boolean> {
  const { lifecycle, statuses, status } = rt;
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

/** Runs until continue-as-new begins (pending typing indicators are dropped: they would be late). */
export async function runTypingLoop(rt: AgentRuntime): Promise<void> {
  for (;;) {
    // Stopped by a refusal: typing waits too (it would be refused as well).
    await condition(
      () => rt.lifecycle.draining || (rt.statuses.hasTyping && rt.status.refusal === undefined),
    );
    if (rt.lifecycle.draining) return;
    const typingId = rt.statuses.takeTyping()!;
    // A late typing indicator is worse than none: skip it when the budget is spent.
    if (rt.windows.typing.delay(rt.now()) > 0) continue;
    const confirm = rt.windows.typing.record(rt.now());
    try {
      await rt.acts.status.sendTyping({ agentKey: rt.agentKey, messageId: typingId });
      confirm(rt.now());
      rt.statuses.typed(typingId);
    } catch (err) {
      confirm(rt.now());
      rt.noteError('status', err);
    }
  }
}
