/**
 * The poll loop: one long poll at a time, paced by the updates window, from the offset in
 * workflow state; each page's messages are handed to the dispatcher in arrival order before the
 * offset moves past them, and its receipts too. A failed poll is retried from the same offset
 * after Retry-After, the 429 ladder or the backoff (core/backoff.ts). Owns the cursor, the open
 * poll and the poll deadline.
 */
import { CancellationScope, condition, isCancellation, sleep } from '@temporalio/workflow';
import type { QuietPollingInput } from '../../activities/quiet-polling';
import type { PollOutput } from '../../activities/types';
import type { Dispatcher } from './dispatcher';
import { requestVerdict } from './failure';
import { readToEnd } from './poll-cursor';
import { pageKind, waitAfterPage } from './poll-budget';
import { expectPoll, pollFailed, untilResumed } from './poll-health';
import { assumeQuietPolls, quietPollingFor, recordQuietPolls, type QuietPollContext } from './quiet-poll';
import type { AgentRuntime } from './runtime';
import { FRESH_RETRY_STATE, backoffMs, retryAfterRejection, type RetryState } from './send-policy';

/** Where the loop is in its retries after failed polls. */
interface PollRetry {
  /** Failed polls in a row that were not rejections: the backoff's exponent. */
  failures: number;
  retry: RetryState;
  notBefore: number | undefined;
}

export async function runPollLoop(rt: AgentRuntime, dispatcher: Dispatcher): Promise<void> {
  const { lifecycle } = rt;
  // A retry time carried from the previous run (a poll refused just before continue-as-new).
  const retry: PollRetry = { failures: 0, retry: FRESH_RETRY_STATE, notBefore: rt.cursor.retryAt };
  // Runs through draining too (a send being reconciled needs polls); the open poll is cancelled
  // at continue-as-new.
  for (;;) {
    // Continue-as-new is ending polling: no new poll (see the workflow's hand-over).
    if (lifecycle.pollEnding) return;
    // Stopped by a final refusal: no poll until resumed (refusal.ts), then at once.
    if (rt.status.refusal && !(await untilResumed(rt))) return;
    expectPoll(rt, 'paced', retry.notBefore);
    const confirm = await rt.pace(rt.windows.updates, { notBefore: retry.notBefore });
    const pollStartedAt = rt.now();
    const timeoutSeconds = rt.cursor.timeoutSeconds(rt.tuning.pollTimeoutSeconds);
    const quiet = timeoutSeconds > 0 ? quietPollingFor(quietContext(rt)) : undefined;
    expectPoll(rt, quiet ? 'quiet' : 'long');
    let result: PollOutput;
    try {
      result = await pollOnce(rt, timeoutSeconds, quiet);
    } catch (err) {
      if (lifecycle.draining && isCancellation(err)) return;
      confirm(rt.now());
      if (quiet) assumeQuietPolls(rt.windows.updates, quiet, pollStartedAt, rt.now());
      if (quiet && isCancellation(err)) continue; // ended for a reconciliation: poll again at once
      const info = pollFailed(rt, err);
      if (!rt.status.refusal) retryLater(rt, retry, requestVerdict(info));
      // Ended for continue-as-new (cancelled, or timed out on a lost worker): the next run polls.
      if (lifecycle.pollEnding) return;
      continue;
    } finally {
      rt.poll.closed();
    }
    Object.assign(retry, { failures: 0, retry: FRESH_RETRY_STATE, notBefore: undefined });
    rt.cursor.retryAt = undefined;
    rt.deadline.ended(rt.now());
    rt.tally.polled(1 + recordQuietPolls(rt.windows.updates, result.quietPolls));
    confirm(rt.now());
    // Answered before the cancellation reached it: the next run reads the page again.
    if (lifecycle.pollEnding) return;
    if (result.status === 'page') await processPage(rt, dispatcher, result);
    // 204: same offset. 409: a poll that outlived its activity, or another program on the
    // token; harmless, poll again from the same offset. Only a poll that read to the end of the
    // stream can be a reconciliation's fence: a full page may have left the receipt behind, a
    // 409 read nothing.
    rt.cursor.completed(pollStartedAt, readToEnd(result, rt.tuning.pollLimit));
    const pause = afterPoll(rt, result);
    if (pause) await pause;
  }
}

/** One poll activity, in a scope the open poll can cancel (the poll loop's `OpenPoll`). */
function pollOnce(
  rt: AgentRuntime,
  timeoutSeconds: number,
  quiet: QuietPollingInput | undefined,
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
    }),
  );
}

/** Sets when the next poll may start after a failed one; carried, so a next run waits too. */
function retryLater(rt: AgentRuntime, state: PollRetry, verdict: ReturnType<typeof requestVerdict>): void {
  const random = () => Math.random(); // Seeded per run by the SDK: the same on replay.
  if (verdict.kind === 'rejected') {
    const next = retryAfterRejection(state.retry, verdict.rejection, rt.tuning, random);
    state.retry = next.state;
    state.notBefore = rt.now() + next.waitMs;
  } else {
    state.notBefore = rt.now() + backoffMs(state.failures++, rt.tuning, random);
  }
  // Carried: a run that continues as new now must not poll sooner than this one may.
  rt.cursor.retryAt = state.notBefore;
}

/**
 * The wait after a completed poll: receipts settle, the cadence, or (idle polling) a wake; none
 * when there is nothing to wait for (no promise, not even an extra tick, so that this run's
 * commands keep their order).
 */
function afterPoll(rt: AgentRuntime, result: PollOutput): Promise<void> | undefined {
  const kind = pageKind(result);
  const wait =
    rt.tuning.idlePollMs > 0 || kind === 'nothing'
      ? 0
      : waitAfterPage(kind, rt.windows.updates, rt.now(), rt.tuning);
  // A page shorter than the limit left nothing behind: anything newer comes with a wake.
  const short = result.status !== 'page' || readToEnd(result, rt.tuning.pollLimit);
  const idles = short && rt.tuning.idlePollMs > 0;
  if (wait <= 0 && !idles) return undefined;
  return (async () => {
    if (wait > 0) await sleep(wait);
    if (idles) await idle(rt);
  })();
}

function quietContext(rt: AgentRuntime): QuietPollContext {
  return {
    tuning: rt.tuning,
    limits: rt.input.limits,
    window: rt.windows.updates,
    fenceWanted: rt.inFlight.reconciling > 0,
  };
}

/** With `idlePollMs`: after a poll that left nothing behind, wait for a wake signal or the interval. */
async function idle(rt: AgentRuntime): Promise<void> {
  const { lifecycle } = rt;
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
    rt.statuses.addMarkRead(message.id);
  }
  for (const status of page.statuses) dispatcher.receipt(status);
  rt.cursor.advance(page.nextOffset);
  release();
}
