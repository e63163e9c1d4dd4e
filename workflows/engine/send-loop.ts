/**
 * The outbox loop: takes the next request the outbox allows, sends it (one attempt per
 * activity, paced by the messages window), retries what the send policy says may be retried,
 * settles ambiguous attempts only as the request opted in, and hands the outcome back.
 */
import { condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import { sendResultSignal } from '../../protocol/messages';
import type { SendOutcome } from '../../protocol';
import { failureInfo, sendVerdict } from './failure';
import type { Queued } from './outbox';
import { refusalOf, refusedOutcome } from './refusal';
import type { AgentRuntime } from './runtime';
import { FRESH_RETRY_STATE, backoffMs, retryAfterRejection, retryAllowed } from './send-policy';
import type { SignalTracker } from './signal-tracker';
import { reportOutbox } from '../author/metrics';

export async function runOutbox(
  rt: AgentRuntime,
  signals: SignalTracker,
  idleTimer: boolean,
): Promise<never> {
  const ready = () => !rt.pollEnding && rt.outbox.next(rt.order, rt.now(), rt.draining) !== undefined;
  for (;;) {
    // Wakes for a held first-reply turn that expires; idle, it costs no workflow task at all.
    // (`idleTimer`: runs recorded before that rule woke every `orderingGraceMs`.)
    const expiry = rt.order.nextExpiry(rt.now()) ?? (idleTimer ? rt.tuning.orderingGraceMs : undefined);
    if (expiry === undefined) await condition(ready);
    else if (!(await condition(ready, expiry))) continue;
    // Re-evaluated: another coroutine (draining for continue-as-new) may have run since.
    const req = rt.pollEnding ? undefined : rt.outbox.next(rt.order, rt.now(), rt.draining);
    if (!req) continue;
    rt.outbox.start(req);
    reportOutbox(rt);
    const outcome = await sendOne(rt, req);
    rt.outbox.finish(req, outcome);
    settle(rt, signals, req, outcome);
    rt.attempting = undefined;
    reportOutbox(rt);
  }
}

/** Books an outcome: counters, receipt route, the reply wait of a question, and the requester. */
function settle(rt: AgentRuntime, signals: SignalTracker, req: Queued, outcome: SendOutcome): void {
  if (outcome.ok) {
    rt.counters.sent++;
    rt.ledger.sent(outcome.messageId, req.requester);
    // A "which one?" list is found by the id a reply to it quotes.
    rt.router.whichOnes.sent(req.requestId, outcome.messageId);
    if (req.requester && req.expectReply) {
      const answers = req.answerWords ? { words: req.answerWords, label: req.answerLabel ?? '' } : undefined;
      rt.router.register(
        { workflowId: req.requester, waitId: req.waitId },
        outcome.messageId,
        req.waitNextToo ?? true,
        answers,
      );
    }
  } else {
    rt.counters.failedSends++;
  }
  if (req.via === 'signal' && req.requester) notifyRequester(signals, req.requester, req.requestId, outcome);
}

export function notifyRequester(
  signals: SignalTracker,
  requester: string,
  requestId: string,
  outcome: SendOutcome,
): void {
  signals.track(getExternalWorkflowHandle(requester).signal(sendResultSignal, { requestId, outcome }));
}

async function sendOne(rt: AgentRuntime, req: Queued): Promise<SendOutcome> {
  let retry = FRESH_RETRY_STATE;
  let notBefore: number | undefined;
  const random = () => Math.random(); // Seeded per run by the SDK: the same on replay.
  for (;;) {
    const { attempts } = retry;
    // Stopped by a refusal (its token refused): nothing can be sent; the caller learns it now.
    if (rt.refusal) return refusedOutcome(rt.refusal, attempts);
    if (!rt.cursor.recipient) {
      await condition(
        () => rt.cursor.recipient !== undefined || rt.cursor.firstPollDone || rt.refusal !== undefined,
      );
      if (rt.refusal) return refusedOutcome(rt.refusal, attempts);
      if (!rt.cursor.recipient) {
        return {
          ok: false,
          type: 'NoRecipient',
          message:
            'No recipient is known yet: the human has not written to this agent, and discovery found none.',
          attempts,
        };
      }
    }
    if (!stillWanted(rt, req)) return notWaiting(attempts);
    const confirm = await rt.pace(rt.windows.messages, { notBefore });
    // Checked again after the pacing wait: the answer may have come meanwhile. (The window keeps
    // the slot it reserved: one record too many is the safe side.)
    if (!stillWanted(rt, req)) return notWaiting(attempts);
    const attemptAt = rt.now();
    retry = { ...retry, attempts: attempts + 1 };
    // From here the human may see the message before the agent has the result (see quote-hold).
    rt.attempting = req;
    try {
      const result = await rt.acts.send.sendMessage({
        agentKey: rt.agentKey,
        to: rt.cursor.recipient,
        message: req.message,
        attemptId: `${req.requestId}#${retry.attempts}`,
      });
      confirm(rt.requestEnd(result.startedAt));
      if (result.recipient) rt.cursor.recipient = result.recipient;
      rt.ledger.sent(result.messageId);
      return { ok: true, messageId: result.messageId, attempts: retry.attempts };
    } catch (err) {
      const info = failureInfo(err);
      confirm(rt.requestEnd(info.details?.startedAt));
      rt.noteError('send', err);
      const verdict = sendVerdict(info);
      // Refused, not sent: nothing the human could have seen (an ambiguous attempt stays).
      if (verdict.kind !== 'ambiguous') rt.attempting = undefined;
      if (verdict.kind === 'final') {
        const refusal = refusalOf(rt.agentKey, 'send', info, new Date(rt.now()).toISOString());
        if (refusal) rt.halt(refusal);
        return { ok: false, type: verdict.type, message: info.message, attempts: retry.attempts };
      }
      const max = rt.tuning.maxSendAttempts;
      if (verdict.kind === 'rejected') {
        if (!retryAllowed(retry, 'rejection', max))
          return { ok: false, type: 'SendRejected', message: info.message, attempts: retry.attempts };
        const next = retryAfterRejection(retry, verdict.rejection, rt.tuning, random);
        retry = next.state;
        notBefore = rt.now() + next.waitMs;
        continue;
      }
      if (req.retryAmbiguous && retryAllowed(retry, 'resend', max)) {
        notBefore = rt.now() + backoffMs(retry.transient, rt.tuning, random);
        retry = { ...retry, transient: retry.transient + 1, resends: retry.resends + 1 };
        continue;
      }
      if (req.reconcileAmbiguous) {
        const accepted = await reconcile(rt, attemptAt);
        if (accepted) return { ok: true, messageId: accepted, attempts: retry.attempts };
        // Proven not accepted: sending it now cannot make a duplicate.
        if (retryAllowed(retry, 'resend', max)) {
          retry = { ...retry, resends: retry.resends + 1 };
          continue;
        }
      }
      const reason = info.timedOut ? 'the send activity timed out (worker lost mid-send?)' : info.message;
      return {
        ok: false,
        type: 'AmbiguousSend',
        message: `It is unknown whether the message was sent (${reason}); it was not sent again.`,
        attempts: retry.attempts,
      };
    }
  }
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
  rt.reconciling++;
  rt.endQuietPoll?.();
  try {
    await condition(
      () => rt.ledger.claimable(attemptAt) !== undefined || rt.cursor.lastPollStartedAt >= fence,
    );
  } finally {
    rt.reconciling--;
  }
  const accepted = rt.ledger.claimable(attemptAt);
  if (accepted) rt.ledger.claim(accepted);
  return accepted;
}
