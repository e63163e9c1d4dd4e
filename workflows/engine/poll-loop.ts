/**
 * The poll loop: one long poll at a time, paced by the updates window, from the offset in
 * workflow state; each page's messages are handed off (routed) in arrival order before the
 * offset moves past them, and its receipts go to the workflows that sent those messages. A
 * failed poll is retried from the same offset after Retry-After, the 429 ladder or a backoff.
 */
import {
  CancellationScope,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  sleep,
  workflowInfo,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PollOutput } from '../../activities/types';
import { handlerWorkflowId } from '../../protocol/ids';
import { lateSignal, receiptSignal } from '../../protocol/messages';
import { countHandlerStart } from '../author/metrics';
import { EXPIRED_QUESTION_TEXT } from '../author/text';
import type { InboundMessage, Status } from '../../protocol';
import { answer, deliverTo } from './delivery';
import { requestVerdict } from './failure';
import { readToEnd } from './poll-cursor';
import { pageKind, waitAfterPage } from './poll-budget';
import { assumeQuietPolls, quietPollingFor, recordQuietPolls, type QuietPollContext } from './quiet-poll';
import { holdThenRoute, mustHold, sendInFlightWait } from './quote-hold';
import { expectPoll, pollFailed, untilResumed } from './poll-health';
import { awaitsCancel, evenCadence, settling, strictFence } from './poll-patches';
import type { AgentRuntime } from './runtime';
import { FRESH_RETRY_STATE, retryAfterRejection, type RetryState } from './send-policy';
import type { SignalTracker } from './signal-tracker';
import { askWhichOne, routeChoice } from './which-one-route';

/** The open poll's scope, so continue-as-new can cancel it (its page is read again next run). */
export interface PollHandle {
  scope?: CancellationScope;
}

export async function runPollLoop(
  rt: AgentRuntime,
  signals: SignalTracker,
  handle: PollHandle,
): Promise<void> {
  let failures = 0;
  let retry: RetryState = FRESH_RETRY_STATE;
  // A retry time carried from the previous run (a poll refused just before continue-as-new).
  let notBefore: number | undefined = rt.cursor.retryAt;
  // Runs through draining too (a send being reconciled needs polls); the open poll is cancelled
  // at continue-as-new.
  for (;;) {
    // Continue-as-new is ending polling: no new poll (see the workflow's hand-over).
    if (rt.pollEnding) return;
    // Stopped by a final refusal: no poll until resumed (refusal.ts), then at once.
    if (rt.refusal && !(await untilResumed(rt))) return;
    expectPoll(rt, 'paced', notBefore);
    const confirm = await rt.pace(rt.windows.updates, { notBefore });
    const pollStartedAt = rt.now();
    const timeoutSeconds = rt.cursor.timeoutSeconds(rt.tuning.pollTimeoutSeconds);
    const quiet = timeoutSeconds > 0 ? quietPollingFor(quietContext(rt)) : undefined;
    expectPoll(rt, quiet ? 'quiet' : 'long');
    let result: PollOutput;
    try {
      const scope = (handle.scope = new CancellationScope());
      // A reconciliation needs a poll that starts after its fence: a quiet poll gives way.
      if (quiet) rt.endQuietPoll = () => scope.cancel();
      const acts = quiet ? rt.acts.quietPoll : awaitsCancel() ? rt.acts.pollAwaitingCancel : rt.acts.poll;
      result = await handle.scope.run(() =>
        acts.pollUpdates({
          agentKey: rt.agentKey,
          offset: rt.cursor.offset,
          limit: rt.tuning.pollLimit,
          // The first poll of a new agent answers at once, with the creator in `contacts`.
          timeoutSeconds,
          ...(quiet ? { quiet } : {}),
        }),
      );
    } catch (err) {
      if (rt.draining && isCancellation(err)) return;
      confirm(rt.requestEnd());
      if (quiet) assumeQuietPolls(rt.windows.updates, quiet, pollStartedAt, rt.now());
      if (quiet && isCancellation(err)) continue; // ended for a reconciliation: poll again at once
      const info = pollFailed(rt, err);
      if (rt.refusal) {
        if (rt.pollEnding) return;
        continue;
      }
      const verdict = requestVerdict(info);
      if (verdict.kind === 'rejected') {
        const next = retryAfterRejection(retry, verdict.rejection, rt.tuning, () => Math.random());
        retry = next.state;
        notBefore = rt.now() + next.waitMs;
      } else {
        notBefore = rt.now() + Math.min(60_000, 1000 * 2 ** Math.min(failures++, 6));
      }
      // Carried: a run that continues as new now must not poll sooner than this one may.
      rt.cursor.retryAt = notBefore;
      // Ended for continue-as-new (cancelled, or timed out on a lost worker): the next run polls.
      if (rt.pollEnding) return;
      continue;
    } finally {
      handle.scope = undefined;
      rt.endQuietPoll = undefined;
    }
    failures = 0;
    retry = FRESH_RETRY_STATE;
    notBefore = rt.cursor.retryAt = undefined;
    rt.pollEndedAt = rt.now();
    rt.counters.polls += 1 + recordQuietPolls(rt.windows.updates, result.quietPolls);
    confirm(rt.requestEnd(result.startedAt));
    // Answered before the cancellation reached it: the next run reads the page again.
    if (rt.pollEnding) return;
    if (result.status === 'page') await processPage(rt, signals, result);
    // 204: same offset. 409: a poll that outlived its activity, or another program on the
    // token; harmless, poll again from the same offset. Only a poll that read to the end of the
    // stream can be a reconciliation's fence: a full page may have left the receipt behind, a
    // 409 read nothing.
    rt.cursor.completed(pollStartedAt, readToEnd(result, rt.tuning.pollLimit) || !strictFence());
    // Receipts only: settle, so the receipts that follow come in one page, and keep a reserve.
    const kind = pageKind(result);
    const wait =
      rt.tuning.idlePollMs > 0 || kind === 'nothing'
        ? 0
        : waitAfterPage(kind, rt.windows.updates, rt.now(), rt.tuning, evenCadence());
    if (wait > 0 && settling()) await sleep(wait);
    // A page shorter than the limit left nothing behind: anything newer comes with a wake.
    const short = result.status !== 'page' || readToEnd(result, rt.tuning.pollLimit);
    // (No await at all without idle polling: an extra tick would reorder this run's commands.)
    if (short && rt.tuning.idlePollMs > 0) await idle(rt);
  }
}

function quietContext(rt: AgentRuntime): QuietPollContext {
  return {
    tuning: rt.tuning,
    limits: rt.input.limits,
    window: rt.windows.updates,
    fenceWanted: rt.reconciling > 0,
  };
}

/** With `idlePollMs`: after a poll that left nothing behind, wait for a wake signal or the interval. */
async function idle(rt: AgentRuntime): Promise<void> {
  expectPoll(rt, 'idle');
  if (!rt.wakeRequested) await condition(() => rt.wakeRequested || rt.draining, rt.tuning.idlePollMs);
  rt.wakeRequested = false;
}

async function processPage(
  rt: AgentRuntime,
  signals: SignalTracker,
  page: Extract<PollOutput, { status: 'page' }>,
): Promise<void> {
  rt.processingPage = true;
  rt.cursor.seePage(page);
  // Every hand-off of the page is issued at once (one workflow task starts all the children);
  // routing decisions are still taken in arrival order, before the first await of each.
  const fresh = rt.cursor.fresh(page.messages);
  // An answer to a message whose send result the agent does not have yet waits for it (quote-hold).
  const sendWait = sendInFlightWait(rt, fresh);
  if (sendWait) await sendWait;
  await Promise.all(
    fresh.map((message) => {
      const seq = ++rt.inboundSeq;
      if (!mustHold(rt, message)) return route(rt, message, seq);
      // Held in workflow state (continue-as-new waits for it): the page goes on without it.
      holdThenRoute(rt, message, seq, route).catch(rt.fail);
      return Promise.resolve();
    }),
  );
  for (const message of fresh) {
    // Only now, with the hand-off recorded in history, may the message leave the buffer.
    rt.cursor.dispatched(message.id);
    rt.counters.received++;
    rt.statuses.addMarkRead(message.id);
  }
  for (const status of page.statuses) deliverReceipt(rt, signals, status);
  rt.cursor.advance(page.nextOffset);
  rt.processingPage = false;
}

/**
 * Hands `message` to exactly one place: a waiter that takes it; else, for a late answer to a
 * timed-out question, the conversation that asked (or, if it has ended, the agent answers that
 * the question expired); else a new handler.
 */
export async function route(rt: AgentRuntime, message: InboundMessage, seq: number): Promise<void> {
  const late = rt.router.late(message);
  if (late) {
    try {
      await getExternalWorkflowHandle(late.workflowId).signal(lateSignal, {
        message,
        seq,
        questionId: late.questionId,
      });
    } catch (err) {
      // The conversation has ended: say so, quoting the answer (a reaction needs no answer).
      rt.noteError('route', err);
      if (message.type !== 'reaction') answer(rt, message, 'expired', late.lateText ?? EXPIRED_QUESTION_TEXT);
    }
    return;
  }
  // A reply to a "which one?" list: its number picks the wait, anything else asks again.
  const choice = rt.router.whichOnes.choice(message);
  if (choice) return routeChoice(rt, message, seq, choice);
  // A bare "yes" that fits several pending approvals: ask which one, handled here.
  const waits = rt.router.ambiguousWaits(message);
  if (waits) return askWhichOne(rt, message, message, waits);
  for (let waiter = rt.router.take(message); waiter; waiter = rt.router.take(message)) {
    if (await deliverTo(rt, waiter, message, seq)) return;
  }
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
          activityQueuePrefix: rt.input.activityQueuePrefix ?? workflowInfo().taskQueue,
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

function deliverReceipt(rt: AgentRuntime, signals: SignalTracker, status: Status): void {
  rt.counters.receipts++;
  const requester = rt.ledger.receive(status, rt.now());
  if (!requester) return;
  signals.track(
    getExternalWorkflowHandle(requester).signal(receiptSignal, {
      messageId: status.id,
      status: status.status,
      timestamp: status.timestamp,
    }),
  );
}
