/**
 * The outbox loop: takes the next request the outbox allows, sends it (one attempt per
 * activity, paced by the messages window, the mark-reads due riding with it: read, then answer),
 * retries what the send policy says may be retried, settles ambiguous attempts only as the
 * request opted in, and hands the outcome back. Owns the send in flight (send-in-flight.ts).
 */
import { condition } from '@temporalio/workflow';
import type { SendFailureType, SendOutcome } from '../../protocol';
import { failureInfo, sendVerdict, type FailureInfo } from './failure';
import type { Queued } from './outbox';
import { refusalOf, refusedOutcome } from './refusal';
import type { AgentRuntime } from './runtime';
import {
  FRESH_RETRY_STATE,
  backoffMs,
  retryAfterRejection,
  retryAllowed,
  type RetryState,
} from './send-policy';
import { countSendFailure, reportOutbox } from '../author/metrics';
import { notifyRequester, wantsToHear } from './requester';

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
