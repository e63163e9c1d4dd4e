/**
 * The poller at work: the poll loop and what it tells of its health (its deadline, a failed poll
 * booked, the wait of a stopped agent). Its state and rules are poll-rules.ts.
 */
import { ActivityFailure } from '@temporalio/common';
import { CancellationScope, condition, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import type { QuietPollingInput } from '../../activities/quiet-polling';
import type { LostPollInput, PollOutput } from '../../activities/types';
import type { Status } from '../../protocol/conversations';
import type { Dispatcher } from './dispatcher';
import {
  pollReportOf,
  decide,
  failureInfo,
  isWorkerShutdown,
  type FailureInfo,
  refusalOf,
} from './request-policy';
import {
  readToEnd,
  pageKind,
  waitAfterPage,
  assumeQuietPolls,
  quietPollingFor,
  recordQuietPolls,
  type QuietPollContext,
  PollRetry,
  type PollStep,
} from './poll-rules';
import type { AgentRuntime } from './runtime';

/**
 * The poll loop: one long poll at a time, paced by the updates window, from the offset in
 * workflow state; each page's messages are handed to the dispatcher in arrival order before the
 * offset moves past them, and its receipts too. The waits before a poll (the window's pacing,
 * the even cadence after a page) are the activity's own (`startAfterMs`): a page costs the agent
 * one workflow task. (Mark-reads are the sender's: statuses.ts.) A failed poll is
 * retried from the same offset after Retry-After, the 429 ladder or the backoff
 * (core/backoff.ts). Owns the cursor, the open poll and the poll deadline.
 */

/** A wait before a poll longer than this is a workflow timer, not the activity's (its timeouts stay short). */
const ACTIVITY_WAIT_MAX_MS = 20_000;

export async function runPollLoop(rt: AgentRuntime, dispatcher: Dispatcher): Promise<void> {
  const { lifecycle } = rt;
  // Seeded per run by the SDK: the same on replay.
  const retry = new PollRetry(rt.cursor, rt.tuning, () => Math.random());
  /** The even cadence's wait after the last page (the next poll starts after it). */
  let cadenceMs = 0;
  // Runs through draining too (a send being reconciled needs polls); the open poll is cancelled
  // at continue-as-new.
  for (;;) {
    // Continue-as-new is ending polling: no new poll (see the workflow's hand-over).
    if (lifecycle.pollEnding) return;
    // Stopped by a final refusal: no poll until resumed (request-policy.ts), then at once.
    if (rt.status.refusal && !(await untilResumed(rt))) return;
    expectPoll(rt, 'paced', retry.notBefore);
    let plan = planAhead(rt, retry.notBefore, cadenceMs);
    if (plan.waitMs > ACTIVITY_WAIT_MAX_MS) {
      // A long wait (a 429's Retry-After, a full window): a durable timer, then plan again.
      plan.cancel();
      await sleep(plan.waitMs);
      if (lifecycle.pollEnding) return;
      plan = planAhead(rt, retry.notBefore, 0);
    }
    cadenceMs = 0;
    const timeoutSeconds = rt.cursor.timeoutSeconds(rt.tuning.pollTimeoutSeconds);
    const handedOutAt = rt.now();
    const pollStartedAt = handedOutAt + plan.waitMs;
    const quiet = timeoutSeconds > 0 ? quietPollingFor(quietContext(rt, pollStartedAt)) : undefined;
    const lostPoll = retry.lostPoll(rt.now());
    rt.deadline.expect(quiet ? 'quiet' : 'long', rt.now() + Math.max(plan.waitMs, lostPoll?.waitMs ?? 0));
    let result: PollOutput;
    try {
      result = await pollOnce(rt, timeoutSeconds, quiet, plan.waitMs, lostPoll);
    } catch (err) {
      bookFailedPoll(rt, err, quiet, pollStartedAt);
      if (lifecycle.draining && isCancellation(err) && !endedToPollAgain(rt, quiet)) return;
      plan.confirm(rt.now());
      if (quiet && isCancellation(err)) continue; // ended for a reconciliation: poll again at once
      const info = pollFailed(rt, err, handedOutAt);
      // Given up by a worker whose process ended: nothing of it is open at the service, no
      // wait. Timed out: a poll it started may still be open at the service (its worker cut off,
      // not dead); the next poll waits for its end there (a wait the next poll activity cuts
      // short when the lost attempt's process has ended: activities/poll-tickets.ts), with no
      // backoff. Otherwise the ladder or the backoff (poll-rules.ts). Stopped by a refusal: the
      // refusal's resume polls (after a lost poll's wait all the same).
      if (!rt.status.refusal) retry.afterFailure(rt.now(), info, timeoutSeconds, ticketOf(err));
      else if (info.timedOut) retry.lost(rt.now(), timeoutSeconds, ticketOf(err));
      // Ended for continue-as-new (cancelled, or timed out on a lost worker): the next run polls.
      if (lifecycle.pollEnding) return;
      continue;
    } finally {
      rt.poll.closed();
    }
    retry.succeeded();
    rt.deadline.ended(rt.now());
    rt.tally.polled(1 + recordQuietPolls(rt.windows.updates, result.quietPolls));
    // Counted from its answer: the service may have counted it any time until it answered.
    plan.confirm(rt.now());
    // Answered before the cancellation reached it: the next run reads the page again.
    if (lifecycle.pollEnding) return;
    // Receipts a quiet poll read past: for the ledger and the counters (nobody waits for them).
    if (result.status !== 'page') receiveReadPast(rt, result.readPast, result.readPastAt);
    if (result.status !== 'page' && result.offsetAfter !== undefined) rt.cursor.advance(result.offsetAfter);
    if (result.status === 'page') await processPage(rt, dispatcher, result);
    // 204: same offset. 409: a poll that outlived its activity, or another program on the
    // token; harmless, poll again from the same offset. Only a poll that read to the end of the
    // stream can be a reconciliation's fence: a full page may have left the receipt behind, a
    // 409 read nothing.
    rt.cursor.completed(pollStartedAt, readToEnd(result, rt.tuning.pollLimit));
    cadenceMs = cadenceAfter(rt, result);
    if (rt.tuning.idlePollMs > 0) await idleAfter(rt, result);
  }
}

/**
 * A cancelled poll that the loop must follow with another although the run is draining: a quiet
 * poll ended so that the next one starts now (a reconciliation's fence, a receipt watch), not by
 * the hand-over (which ends polling first). Stopping there, a send being reconciled would wait for
 * that poll for ever: the run would never move on nor poll again.
 */
function endedToPollAgain(rt: AgentRuntime, quiet: QuietPollingInput | undefined): boolean {
  return quiet !== undefined && !rt.lifecycle.pollEnding;
}

/**
 * When the next poll may start (the updates window's pacing, a retry wait, the cadence), as a
 * wait from now, and the window's record of it (moved to when it really started, or cancelled).
 */
function planAhead(
  rt: AgentRuntime,
  notBefore: number | undefined,
  afterMs: number,
): { waitMs: number; confirm: (at: number) => void; cancel: () => void } {
  const now = rt.now();
  let at = now + afterMs;
  for (;;) {
    const decision = decide(rt.windows.updates, at, { notBefore }, rt.tuning.pacingMarginMs);
    if (decision.action === 'send') break;
    at += decision.ms;
  }
  const confirm = rt.windows.updates.record(at);
  return {
    waitMs: at - now,
    confirm,
    cancel: () => rt.windows.updates.forget(at),
  };
}

/**
 * Books what a failed or cancelled poll did: its quiet polls in the updates window, as it reports
 * them, else the most it may have made (a lost worker reports nothing); the receipts its quiet
 * polls read past, and the offset after them, so that the next poll (this run's or the next
 * run's) does not read them again.
 */
function bookFailedPoll(
  rt: AgentRuntime,
  err: unknown,
  quiet: QuietPollingInput | undefined,
  pollStartedAt: number,
): void {
  const report = pollReportOf(err);
  receiveReadPast(rt, report.readPast, report.readPastAt);
  if (report.readPast?.length && report.offsetAfter !== undefined) rt.cursor.advance(report.offsetAfter);
  // The polls it made besides the failed one (a quiet poll's, or a page read again smaller).
  if (report.quietPolls) recordQuietPolls(rt.windows.updates, report.quietPolls);
  else if (quiet) assumeQuietPolls(rt.windows.updates, quiet, pollStartedAt, rt.now());
}

/** One poll activity, in a scope the open poll can cancel (the poll loop's `OpenPoll`). */
function pollOnce(
  rt: AgentRuntime,
  timeoutSeconds: number,
  quiet: QuietPollingInput | undefined,
  startAfterMs: number,
  lostPoll: LostPollInput | undefined,
): Promise<PollOutput> {
  const scope = new CancellationScope();
  // A reconciliation needs a poll that starts after its fence: a quiet poll gives way.
  rt.poll.opened(() => scope.cancel(), quiet !== undefined);
  return scope.run(() =>
    (quiet ? rt.acts.quietPoll : rt.acts.poll).pollUpdates({
      agentKey: rt.agentKey,
      offset: rt.cursor.offset,
      limit: rt.tuning.pollLimit,
      // The first poll of a new agent answers at once, with the creator in `contacts`.
      timeoutSeconds,
      ...(quiet ? { quiet } : {}),
      ...(startAfterMs > 0 ? { startAfterMs } : {}),
      ...(lostPoll ? { lostPoll } : {}),
    }),
  );
}

/** The ticket of the poll activity attempt that failed with `err` (activities/poll-tickets.ts). */
function ticketOf(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure) || !err.activityId) return undefined;
  const { workflowId, runId } = workflowInfo();
  return `${workflowId}/${runId}/${err.activityId}`;
}

/** The wait after a completed poll (the cadence after a page, receipts settling): the next poll's. */
function cadenceAfter(rt: AgentRuntime, result: PollOutput): number {
  const kind = pageKind(result);
  // Idle polling (the harness) polls on a wake: no cadence to keep.
  if (kind === 'nothing' || rt.tuning.idlePollMs > 0) return 0;
  return waitAfterPage(kind, rt.windows.updates, rt.now(), rt.tuning);
}

function quietContext(rt: AgentRuntime, firstAt: number): QuietPollContext {
  return {
    firstAt,
    tuning: rt.tuning,
    limits: rt.input.limits,
    window: rt.windows.updates,
    fenceWanted: rt.inFlight.reconciling > 0,
    watched: rt.ledger.watched(),
  };
}

/**
 * Receipts a quiet poll read past (no conversation watched them), dated by when they were read: a
 * receipt read minutes ago is no evidence for an ambiguous send made since (receipts.ts).
 */
function receiveReadPast(
  rt: AgentRuntime,
  statuses: Status[] | undefined,
  readAt: number[] | undefined,
): void {
  statuses?.forEach((status, i) => rt.receipts.receive(status, readAt?.[i]));
}

/**
 * With `idlePollMs` (the bot test harness): after a poll that left nothing behind, wait for a
 * wake signal or the interval before polling again.
 */
async function idleAfter(rt: AgentRuntime, result: PollOutput): Promise<void> {
  const { lifecycle } = rt;
  // A page shorter than the limit left nothing behind: anything newer comes with a wake.
  const short = result.status !== 'page' || readToEnd(result, rt.tuning.pollLimit);
  if (!short) return;
  expectPoll(rt, 'idle');
  if (!lifecycle.wakeWanted)
    await condition(() => lifecycle.wakeWanted || lifecycle.draining, rt.tuning.idlePollMs);
  lifecycle.takeWake();
}

/** Hands a page on: its messages (then marked dispatched and queued for mark-read), its receipts. */
async function processPage(
  rt: AgentRuntime,
  dispatcher: Dispatcher,
  page: Extract<PollOutput, { status: 'page' }>,
): Promise<void> {
  const release = rt.lifecycle.hold();
  rt.cursor.seePage(page);
  const fresh = rt.cursor.fresh(page.messages);
  await dispatcher.messages(fresh);
  for (const message of fresh) {
    // Only now, with the hand-off recorded in history, may the message leave the buffer.
    rt.cursor.dispatched(message.id);
    rt.tally.received();
    rt.statuses.addMarkRead(message.id, rt.now());
  }
  page.statuses.forEach((status, i) => rt.receipts.receive(status, page.readPastAt?.[i]));
  rt.cursor.advance(page.nextOffset);
  release();
}

/**
 * What the poll loop tells of its health: by when its next poll should have ended (the poll
 * deadline, poll-rules.ts), and what a failed poll means for the agent's state: an error to
 * show, or a final refusal that stops it (request-policy.ts) until it is resumed.
 */

/** Sets by when the poll of `step` should have ended (`notBefore`: a retry wait before it). */
export function expectPoll(rt: AgentRuntime, step: PollStep, notBefore?: number): void {
  rt.deadline.expect(step, rt.now(), notBefore);
}

/** Waits while a refusal stops the agent; false when continue-as-new ends polling meanwhile. */
export async function untilResumed(rt: AgentRuntime): Promise<boolean> {
  rt.deadline.stopped();
  await condition(() => rt.status.refusal === undefined || rt.lifecycle.pollEnding);
  return !rt.lifecycle.pollEnding;
}

/**
 * Books a failed poll: its error for `amsflow state` (a poll ended by a worker's graceful shutdown
 * is none: the next worker polls again), and a final refusal stops the agent, unless the poll
 * was handed out (`requestedAt`) before the last resume (`AgentStatus.halt`).
 */
export function pollFailed(rt: AgentRuntime, err: unknown, requestedAt: number): FailureInfo {
  rt.deadline.ended(rt.now());
  const info = failureInfo(err);
  if (!isWorkerShutdown(info)) rt.noteError('poll', err);
  const refusal = refusalOf(rt.agentKey, 'poll', info, new Date(rt.now()).toISOString());
  if (refusal) rt.halt(refusal, requestedAt);
  return info;
}
