/**
 * The poller (`Poller`): the owner of the poll loop's state (the cursor, the open poll, the poll
 * deadline, the updates window), the loop, and what it tells of its health (its deadline, a
 * failed poll booked, the wait of a stopped agent). Its rules are poll-rules.ts.
 */
import { ActivityFailure } from '@temporalio/common';
import { CancellationScope, condition, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import type { QuietPollingInput } from '../../activities/quiet-polling';
import type { LostPollInput, PollOutput } from '../../activities/types';
import type { Status } from '../../protocol/conversations';
import { SlidingWindow } from '../../core/sliding-window';
import type { Dispatcher } from './dispatcher';
import type { Sender } from './sender';
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
  OpenPoll,
  PollCursor,
  PollDeadline,
  PollRetry,
  type PollStep,
} from './poll-rules';
import type { AgentRuntime, PollerParts } from './runtime';

/** A wait before a poll longer than this is a workflow timer, not the activity's (its timeouts stay short). */
const ACTIVITY_WAIT_MAX_MS = 20_000;

/**
 * The poller: the one owner of the poll loop's state, the cursor (offset, recent ids, recipient:
 * poll-rules.ts), the open poll, the poll deadline and the updates window. Others ask it: the
 * sender for the recipient and a reconciliation's fence (and to end a quiet poll), the dispatcher
 * to end a quiet poll for a receipt watch, the hand-over to cancel the open poll.
 *
 * The poll loop (`run`): one long poll at a time, paced by the updates window, from the offset in
 * workflow state; each page's messages are handed to the dispatcher in arrival order before the
 * offset moves past them, and its receipts too. The waits before a poll (the window's pacing,
 * the even cadence after a page) are the activity's own (`startAfterMs`): a page costs the agent
 * one workflow task. (Mark-reads are the sender's: statuses.ts.) A failed poll is
 * retried from the same offset after Retry-After, the 429 ladder or the backoff
 * (core/backoff.ts).
 */
export class Poller {
  private readonly cursor: PollCursor;
  private readonly poll = new OpenPoll();
  private readonly deadline: PollDeadline;
  private readonly updates: SlidingWindow;

  constructor(private readonly rt: AgentRuntime) {
    const { tuning, input } = rt;
    const { limits, carried } = input;
    this.cursor = new PollCursor(tuning.recentIdsKept, carried, input.recipient);
    this.updates = new SlidingWindow(limits.updates, limits.windowMs, carried?.windows.updates);
    this.deadline = new PollDeadline({ ...tuning, windowMs: limits.windowMs });
  }

  // What the others ask of it.

  /** The human the agent writes to, once known (the first poll may discover them). */
  get recipient(): string | undefined {
    return this.cursor.recipient;
  }

  get firstPollDone(): boolean {
    return this.cursor.firstPollDone;
  }

  /** A send's answer named the recipient. */
  sawRecipient(recipient: string): void {
    this.cursor.sawRecipient(recipient);
  }

  /** When the last completed poll started (workflow time): a reconciliation's fence. */
  get lastPollStartedAt(): number {
    return this.cursor.lastPollStartedAt;
  }

  /** Ends the open poll if it is quiet, so that the next poll starts now. */
  endQuietPoll(): void {
    this.poll.endQuiet();
  }

  /** A poll is open (the hand-over cancels it and waits for the loop). */
  get polling(): boolean {
    return this.poll.isOpen;
  }

  /** Cancels the open poll, if any (continue-as-new: its page is read again next run). */
  cancelPoll(): void {
    this.poll.cancel();
  }

  /** The agent is stopped (a final refusal): no poll is due. */
  stopped(): void {
    this.deadline.stopped();
  }

  /** What `amsflow state` shows of the poller. */
  get view(): { offset: number; recipientKnown: boolean; endedAt?: number; dueBy?: number } {
    const { endedAt, dueBy } = this.deadline;
    return {
      offset: this.cursor.offset,
      recipientKnown: this.cursor.recipient !== undefined,
      endedAt,
      dueBy,
    };
  }

  /** The poller's slice of the carried state. */
  carriedParts(): PollerParts {
    return { cursor: this.cursor, windows: { updates: this.updates } };
  }

  // The poll loop.

  /** The poll loop, handing pages to `dispatcher` (the sender queues their mark-reads). */
  async run(dispatcher: Dispatcher, sender: Sender): Promise<void> {
    const { rt, cursor } = this;
    const { lifecycle } = rt;
    // Seeded per run by the SDK: the same on replay.
    const retry = new PollRetry(cursor, rt.tuning, () => Math.random());
    /** The even cadence's wait after the last page (the next poll starts after it). */
    let cadenceMs = 0;
    // Runs through draining too (a send being reconciled needs polls); the open poll is cancelled
    // at continue-as-new.
    for (;;) {
      // Continue-as-new is ending polling: no new poll (see the workflow's hand-over).
      if (lifecycle.pollEnding) return;
      // Stopped by a final refusal: no poll until resumed (request-policy.ts), then at once.
      if (rt.status.refusal && !(await this.untilResumed())) return;
      this.expectPoll('paced', retry.notBefore);
      let plan = this.planAhead(retry.notBefore, cadenceMs);
      if (plan.waitMs > ACTIVITY_WAIT_MAX_MS) {
        // A long wait (a 429's Retry-After, a full window): a durable timer, then plan again.
        plan.cancel();
        await sleep(plan.waitMs);
        if (lifecycle.pollEnding) return;
        plan = this.planAhead(retry.notBefore, 0);
      }
      cadenceMs = 0;
      const timeoutSeconds = cursor.timeoutSeconds(rt.tuning.pollTimeoutSeconds);
      const handedOutAt = rt.now();
      const pollStartedAt = handedOutAt + plan.waitMs;
      const quiet =
        timeoutSeconds > 0 ? quietPollingFor(this.quietContext(sender, pollStartedAt)) : undefined;
      const lostPoll = retry.lostPoll(rt.now());
      this.deadline.expect(quiet ? 'quiet' : 'long', rt.now() + Math.max(plan.waitMs, lostPoll?.waitMs ?? 0));
      let result: PollOutput;
      try {
        result = await this.pollOnce(timeoutSeconds, quiet, plan.waitMs, lostPoll);
      } catch (err) {
        this.bookFailedPoll(dispatcher, err, quiet, pollStartedAt);
        if (lifecycle.draining && isCancellation(err) && !this.endedToPollAgain(quiet)) return;
        plan.confirm(rt.now());
        if (quiet && isCancellation(err)) continue; // ended for a reconciliation: poll again at once
        const info = this.pollFailed(err, handedOutAt);
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
        this.poll.closed();
      }
      retry.succeeded();
      this.deadline.ended(rt.now());
      rt.tally.polled(1 + recordQuietPolls(this.updates, result.quietPolls));
      // Counted from its answer: the service may have counted it any time until it answered.
      plan.confirm(rt.now());
      // Answered before the cancellation reached it: the next run reads the page again.
      if (lifecycle.pollEnding) return;
      // Receipts a quiet poll read past: for the ledger and the counters (nobody waits for them).
      if (result.status !== 'page') receiveReadPast(dispatcher, result.readPast, result.readPastAt);
      if (result.status !== 'page' && result.offsetAfter !== undefined) cursor.advance(result.offsetAfter);
      if (result.status === 'page') await this.processPage(dispatcher, sender, result);
      // 204: same offset. 409: a poll that outlived its activity, or another program on the
      // token; harmless, poll again from the same offset. Only a poll that read to the end of the
      // stream can be a reconciliation's fence: a full page may have left the receipt behind, a
      // 409 read nothing.
      cursor.completed(pollStartedAt, readToEnd(result, rt.tuning.pollLimit));
      cadenceMs = this.cadenceAfter(result);
      if (rt.tuning.idlePollMs > 0) await this.idleAfter(result);
    }
  }

  /**
   * A cancelled poll that the loop must follow with another although the run is draining: a quiet
   * poll ended so that the next one starts now (a reconciliation's fence, a receipt watch), not by
   * the hand-over (which ends polling first). Stopping there, a send being reconciled would wait for
   * that poll for ever: the run would never move on nor poll again.
   */
  private endedToPollAgain(quiet: QuietPollingInput | undefined): boolean {
    return quiet !== undefined && !this.rt.lifecycle.pollEnding;
  }

  /**
   * When the next poll may start (the updates window's pacing, a retry wait, the cadence), as a
   * wait from now, and the window's record of it (moved to when it really started, or cancelled).
   */
  private planAhead(
    notBefore: number | undefined,
    afterMs: number,
  ): { waitMs: number; confirm: (at: number) => void; cancel: () => void } {
    const { rt, updates } = this;
    const now = rt.now();
    let at = now + afterMs;
    for (;;) {
      const decision = decide(updates, at, { notBefore }, rt.tuning.pacingMarginMs);
      if (decision.action === 'send') break;
      at += decision.ms;
    }
    const confirm = updates.record(at);
    return {
      waitMs: at - now,
      confirm,
      cancel: () => updates.forget(at),
    };
  }

  /**
   * Books what a failed or cancelled poll did: its quiet polls in the updates window, as it reports
   * them, else the most it may have made (a lost worker reports nothing); the receipts its quiet
   * polls read past, and the offset after them, so that the next poll (this run's or the next
   * run's) does not read them again.
   */
  private bookFailedPoll(
    dispatcher: Dispatcher,
    err: unknown,
    quiet: QuietPollingInput | undefined,
    pollStartedAt: number,
  ): void {
    const report = pollReportOf(err);
    receiveReadPast(dispatcher, report.readPast, report.readPastAt);
    if (report.readPast?.length && report.offsetAfter !== undefined) this.cursor.advance(report.offsetAfter);
    // The polls it made besides the failed one (a quiet poll's, or a page read again smaller).
    if (report.quietPolls) recordQuietPolls(this.updates, report.quietPolls);
    else if (quiet) assumeQuietPolls(this.updates, quiet, pollStartedAt, this.rt.now());
  }

  /** One poll activity, in a scope the open poll can cancel (`OpenPoll`). */
  private pollOnce(
    timeoutSeconds: number,
    quiet: QuietPollingInput | undefined,
    startAfterMs: number,
    lostPoll: LostPollInput | undefined,
  ): Promise<PollOutput> {
    const { rt } = this;
    const scope = new CancellationScope();
    // A reconciliation needs a poll that starts after its fence: a quiet poll gives way.
    this.poll.opened(() => scope.cancel(), quiet !== undefined);
    return scope.run(() =>
      (quiet ? rt.acts.quietPoll : rt.acts.poll).pollUpdates({
        agentKey: rt.agentKey,
        offset: this.cursor.offset,
        limit: rt.tuning.pollLimit,
        // The first poll of a new agent answers at once, with the creator in `contacts`.
        timeoutSeconds,
        ...(quiet ? { quiet } : {}),
        ...(startAfterMs > 0 ? { startAfterMs } : {}),
        ...(lostPoll ? { lostPoll } : {}),
      }),
    );
  }

  /** The wait after a completed poll (the cadence after a page, receipts settling): the next poll's. */
  private cadenceAfter(result: PollOutput): number {
    const { rt } = this;
    const kind = pageKind(result);
    // Idle polling (the harness) polls on a wake: no cadence to keep.
    if (kind === 'nothing' || rt.tuning.idlePollMs > 0) return 0;
    return waitAfterPage(kind, this.updates, rt.now(), rt.tuning);
  }

  private quietContext(sender: Sender, firstAt: number): QuietPollContext {
    const { rt } = this;
    return {
      firstAt,
      tuning: rt.tuning,
      limits: rt.input.limits,
      window: this.updates,
      fenceWanted: sender.reconciling,
      watched: sender.watchedReceipts(),
    };
  }

  /**
   * With `idlePollMs` (the bot test harness): after a poll that left nothing behind, wait for a
   * wake signal or the interval before polling again.
   */
  private async idleAfter(result: PollOutput): Promise<void> {
    const { rt } = this;
    const { lifecycle } = rt;
    // A page shorter than the limit left nothing behind: anything newer comes with a wake.
    const short = result.status !== 'page' || readToEnd(result, rt.tuning.pollLimit);
    if (!short) return;
    this.expectPoll('idle');
    if (!lifecycle.wakeWanted)
      await condition(() => lifecycle.wakeWanted || lifecycle.draining, rt.tuning.idlePollMs);
    lifecycle.takeWake();
  }

  /** Hands a page on: its messages (then marked dispatched and queued for mark-read), its receipts. */
  private async processPage(
    dispatcher: Dispatcher,
    sender: Sender,
    page: Extract<PollOutput, { status: 'page' }>,
  ): Promise<void> {
    const { rt, cursor } = this;
    const release = rt.lifecycle.hold();
    cursor.seePage(page);
    const fresh = cursor.fresh(page.messages);
    await dispatcher.messages(fresh);
    for (const message of fresh) {
      // Only now, with the hand-off recorded in history, may the message leave the buffer.
      cursor.dispatched(message.id);
      rt.tally.received();
      sender.markRead(message.id, rt.now());
    }
    page.statuses.forEach((status, i) => dispatcher.receipt(status, page.readPastAt?.[i]));
    cursor.advance(page.nextOffset);
    release();
  }

  // What the poll loop tells of its health: by when its next poll should have ended (the poll
  // deadline, poll-rules.ts), and what a failed poll means for the agent's state: an error to
  // show, or a final refusal that stops it (request-policy.ts) until it is resumed.

  /** Sets by when the poll of `step` should have ended (`notBefore`: a retry wait before it). */
  private expectPoll(step: PollStep, notBefore?: number): void {
    this.deadline.expect(step, this.rt.now(), notBefore);
  }

  /** Waits while a refusal stops the agent; false when continue-as-new ends polling meanwhile. */
  private async untilResumed(): Promise<boolean> {
    const { rt } = this;
    this.deadline.stopped();
    await condition(() => rt.status.refusal === undefined || rt.lifecycle.pollEnding);
    return !rt.lifecycle.pollEnding;
  }

  /**
   * Books a failed poll: its error for `amsflow state` (a poll ended by a worker's graceful shutdown
   * is none: the next worker polls again), and a final refusal stops the agent, unless the poll
   * was handed out (`requestedAt`) before the last resume (`AgentStatus.halt`).
   */
  private pollFailed(err: unknown, requestedAt: number): FailureInfo {
    const { rt } = this;
    this.deadline.ended(rt.now());
    const info = failureInfo(err);
    if (!isWorkerShutdown(info)) rt.noteError('poll', err);
    const refusal = refusalOf(rt.agentKey, 'poll', info, new Date(rt.now()).toISOString());
    if (refusal) rt.halt(refusal, requestedAt);
    return info;
  }
}

/** The ticket of the poll activity attempt that failed with `err` (activities/poll-tickets.ts). */
function ticketOf(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure) || !err.activityId) return undefined;
  const { workflowId, runId } = workflowInfo();
  return `${workflowId}/${runId}/${err.activityId}`;
}

/**
 * Receipts a quiet poll read past (no conversation watched them), dated by when they were read: a
 * receipt read minutes ago is no evidence for an ambiguous send made since (receipts.ts).
 */
function receiveReadPast(
  dispatcher: Dispatcher,
  statuses: Status[] | undefined,
  readAt: number[] | undefined,
): void {
  statuses?.forEach((status, i) => dispatcher.receipt(status, readAt?.[i]));
}
