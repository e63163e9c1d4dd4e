/**
 * The poller's state and rules (pure): the cursor (offset, recent ids), when to poll again after
 * failed polls (retries, a lost poll's end), the budget after a page, the poll deadline, the poll
 * now open, and quiet polling. The loop that uses them is poller.ts.
 */
import type { PollOutput, LostPollInput } from '../../activities/types';
import type { Contact, InboundMessage } from '../../protocol/conversations';
import { lostPollWaitMs } from '../../protocol/agent';
import type { SlidingWindow } from '../../core/sliding-window';
import type { QuietPollingInput } from '../../activities/quiet-polling';
import { BoundedMap } from './bounds';
import { pollHeartbeatTimeoutMs, type Tuning } from './tuning';
import {
  isWorkerEnded,
  isWorkerShutdown,
  requestVerdict,
  type FailureInfo,
  FRESH_RETRY_STATE,
  backoffMs,
  retryAfterRejection,
  type RetryState,
} from './request-policy';

/**
 * The poll loop's position: the offset (from `next_offset`; the same after 204, 409 or a
 * failure), whether the first poll (offset 0, timeout 0, which reveals the creator) is done, the
 * recipient last seen, and the recently dispatched message ids, so a page read again never
 * dispatches a message twice. Pure.
 */

export interface CursorState {
  offset: number;
  firstPollDone: boolean;
  recipient?: string;
  recentInbound: string[];
  lastPollStartedAt: number;
  /** Workflow time before which no poll may start (after a refused or failed poll). */
  retryAt?: number;
}

export class PollCursor {
  offset: number;
  firstPollDone: boolean;
  recipient: string | undefined;
  /**
   * Workflow time at which the last poll that read to the end of the stream started: whatever
   * the service had accepted before then, this agent has seen (a fence for reconciliation).
   */
  lastPollStartedAt: number;
  /** Workflow time before which no poll may start: a 429's Retry-After or a backoff, carried. */
  retryAt: number | undefined;
  private readonly recent: BoundedMap<string, true>;

  constructor(recentKept: number, carried?: Partial<CursorState>, recipient?: string) {
    this.offset = carried?.offset ?? 0;
    this.firstPollDone = carried?.firstPollDone ?? false;
    this.recipient = carried?.recipient ?? recipient;
    this.lastPollStartedAt = carried?.lastPollStartedAt ?? 0;
    this.retryAt = carried?.retryAt;
    this.recent = new BoundedMap(
      recentKept,
      (carried?.recentInbound ?? []).map((id) => [id, true] as const),
    );
  }

  /** The long-poll wait of the next poll: 0 for the first (it answers at once with the creator). */
  timeoutSeconds(pollTimeoutSeconds: number): number {
    return this.firstPollDone ? pollTimeoutSeconds : 0;
  }

  /** Takes the recipient a send's answer showed (the service's own spelling of the number). */
  sawRecipient(recipient: string): void {
    this.recipient = recipient;
  }

  /** Takes the recipient a page shows (its last contact, else its last sender). */
  seePage(page: { contacts: Contact[]; messages: InboundMessage[] }): void {
    const seen = page.contacts.at(-1)?.wa_id ?? page.messages.at(-1)?.from;
    if (seen) this.recipient = seen;
  }

  /** The messages of a page not dispatched before. */
  fresh(messages: InboundMessage[]): InboundMessage[] {
    return messages.filter((m) => !this.recent.has(m.id));
  }

  /** `messageId` has been handed off (recorded in history): never dispatch it again. */
  dispatched(messageId: string): void {
    this.recent.set(messageId, true);
  }

  /** A whole page has been handled: move past it. */
  advance(nextOffset: number): void {
    this.offset = nextOffset;
  }

  /**
   * A poll that started at `startedAt` completed (page, 204 or 409); `readToEnd` when it showed
   * everything the service had by then (empty, or a page shorter than the limit).
   */
  completed(startedAt: number, readToEnd = true): void {
    if (readToEnd) this.lastPollStartedAt = startedAt;
    this.firstPollDone = true;
  }

  snapshot(): CursorState {
    return {
      offset: this.offset,
      firstPollDone: this.firstPollDone,
      recipient: this.recipient,
      recentInbound: [...this.recent.keys()],
      lastPollStartedAt: this.lastPollStartedAt,
      ...(this.retryAt === undefined ? {} : { retryAt: this.retryAt }),
    };
  }
}

/** Whether a poll's answer shows the whole stream as of the poll's start: empty, or a short page. */
export function readToEnd(result: PollOutput, pollLimit: number): boolean {
  if (result.status === 'empty') return true;
  if (result.status !== 'page') return false;
  // A page read again smaller (too large for a result) ends at its own limit; a member left out
  // (no usable id) still took its place in the page.
  const limit = result.reread?.limit ?? pollLimit;
  const skipped = (result.misfits ?? []).filter((m) => m.action === 'skipped' && m.kind !== 'contact').length;
  return result.messages.length + result.statuses.length + skipped < limit;
}

/**
 * When the poll loop may poll again after failed polls: the 429 ladder after a rejection, the
 * backoff after other failures, and the wait for a lost poll's end at the service after a poll
 * activity timed out (the poll lease: protocol/agent.ts), with no backoff: a timed-out
 * activity lost its worker (killed, or cut off from Temporal), which says nothing against the
 * service, and the next attempt goes to another worker. (Backing off there too, a run of
 * partitions one after another left an agent polling once in 30 s: a conversation's last reply,
 * whose ambiguous send waited for a poll to be reconciled, came after the human gave up.) The time is carried across
 * continue-as-new (`cursor.retryAt`): a run that moves on must not poll sooner than this one may.
 * Pure (the `Math.random` it is given is seeded per run by the SDK in workflow code).
 */

/** Owns the retry state of the poll loop. */
export class PollRetry {
  /** Failed polls in a row that were not rejections: the backoff's exponent. */
  private failures = 0;
  private retry: RetryState = FRESH_RETRY_STATE;
  /** No poll before this (workflow time); undefined: whenever the window allows. */
  notBefore: number | undefined;
  /** A lost poll's wait, handed to the next poll activity rather than waited here. */
  private handedOff: { ticket: string; until: number } | undefined;

  constructor(
    private readonly cursor: Pick<PollCursor, 'retryAt'>,
    private readonly tuning: Tuning,
    private readonly random: () => number,
  ) {
    // A retry time carried from the previous run (a poll refused just before continue-as-new).
    this.notBefore = cursor.retryAt;
  }

  /** A poll was answered: the next goes whenever the window allows. */
  succeeded(): void {
    this.failures = 0;
    this.retry = FRESH_RETRY_STATE;
    this.notBefore = undefined;
    this.handedOff = undefined;
    this.cursor.retryAt = undefined;
  }

  /** A poll failed at `now` with this verdict: the ladder after a rejection, else the backoff. */
  failed(now: number, verdict: ReturnType<typeof requestVerdict>): void {
    if (verdict.kind === 'rejected') {
      const next = retryAfterRejection(this.retry, verdict.rejection, this.tuning, this.random);
      this.retry = next.state;
      this.hold(now + next.waitMs);
    } else {
      this.hold(now + backoffMs(this.failures++, this.tuning, this.random));
    }
  }

  /**
   * A poll failed at `now` as `info` says (a poll activity of `timeoutSeconds`; `ticket`: a
   * timed-out attempt's): given up by a worker whose process ended, or cut by its worker's
   * graceful shutdown, no wait; timed out, the lost poll's wait and no backoff; refused, the 429
   * ladder; any other failure, the backoff.
   */
  afterFailure(now: number, info: FailureInfo, timeoutSeconds: number, ticket?: string): void {
    if (isWorkerEnded(info) || isWorkerShutdown(info)) this.workerEnded();
    else if (info.timedOut) this.lost(now, timeoutSeconds, ticket);
    else this.failed(now, requestVerdict(info));
  }

  /**
   * A poll was given up because its worker process ended (worker/ended-polls.ts), once the close
   * grace had passed, or its worker cut it as it stopped (a graceful shutdown: the SDK cancels the
   * activity, its request is aborted, and only then is the failure reported, so nothing of it is
   * open at the service by the time another worker takes the next poll): nothing went wrong, and
   * the next goes whenever the window allows, with no backoff, the failures counted so far
   * unchanged.
   */
  workerEnded(): void {
    this.notBefore = undefined;
    this.carry();
  }

  /**
   * A poll activity of `timeoutSeconds` polls timed out at `now` (its worker dead, or cut off):
   * a poll it started may still be open at the service, and the next one waits until it has ended
   * there, or the service would answer the older one 409. With the lost attempt's `ticket`, the
   * wait is handed to the next poll activity ({@link lostPoll}), which cuts it short when the
   * attempt's process has ended (activities/poll-tickets.ts); without, the loop waits it out.
   */
  lost(now: number, timeoutSeconds: number, ticket?: string): void {
    const until = now + lostPollWaitMs(timeoutSeconds, pollHeartbeatTimeoutMs(this.tuning));
    if (ticket === undefined) {
      if (this.notBefore === undefined || this.notBefore < until) this.hold(until);
      return;
    }
    this.handedOff = { ticket, until };
    this.carry();
  }

  /**
   * The lost poll to hand to the next poll activity at `now`: its ticket and what is left of the
   * lease's wait; none once that wait is over or a poll was answered.
   */
  lostPoll(now: number): LostPollInput | undefined {
    const lost = this.handedOff;
    if (!lost) return undefined;
    if (lost.until <= now) {
      this.handedOff = undefined;
      return undefined;
    }
    return { ticket: lost.ticket, waitMs: lost.until - now };
  }

  private hold(until: number): void {
    this.notBefore = until;
    this.carry();
  }

  /**
   * What the next run inherits: the later of the retry time and a handed-off lost poll's wait (a
   * run that moves on waits that out by a timer: the ticket is this run's).
   */
  private carry(): void {
    const times = [this.notBefore, this.handedOff?.until].filter((t): t is number => t !== undefined);
    this.cursor.retryAt = times.length > 0 ? Math.max(...times) : undefined;
  }
}

/**
 * Poll budgeting for live chats, pure: receipts must not starve messages. Every reply brings
 * receipts ('sent', 'delivered', 'read'), and each would wake the long poll on its own: four polls
 * an exchange, and a 15-a-minute budget runs out when the human writes every 12 s. So after a
 * page of receipts only, the next poll waits a settle delay, growing with the share of the budget
 * already spent (nothing when the window is fresh, `receiptSettleMs`, one poll's share of the
 * window, when it is full), so that the receipts that follow merge into one page. A settle
 * shorter than `minSettleMs` is skipped: below the server's timer resolution it would cost a
 * second.
 *
 * Every poll after a page also keeps an even cadence with a burst of one (a leaky bucket of two
 * polls draining one per `windowMs / (limit - 1)`, 4.3 s for the spec's 15 a minute): in a calm
 * chat a poll starts at once, in a busy one polls are spread evenly instead of spent in bursts,
 * which would fill the window and then leave a message waiting for the oldest poll to age out
 * (measured: 35 s at p95 in a live chat at the spec's limits). So paced, polls never put more
 * than `limit` in a window, and a receipt page never takes the slot a message will want (a
 * reserve kept for messages instead fought the cadence and held messages back). A poll that
 * found nothing is followed by the next at once (it waited out its long poll).
 */

export type PageKind = 'messages' | 'receipts' | 'nothing';

export interface PollBudgetTuning {
  receiptSettleMs: number;
  minSettleMs: number;
}

/** Polls the even cadence lets go at once beyond the first (see the module comment). */
export const CADENCE_BURST = 1;

/** What a poll brought. */
export function pageKind(result: { status: string; messages?: unknown[]; statuses?: unknown[] }): PageKind {
  if (result.status !== 'page') return 'nothing';
  if ((result.messages?.length ?? 0) > 0) return 'messages';
  return (result.statuses?.length ?? 0) > 0 ? 'receipts' : 'nothing';
}

/** Milliseconds to wait before the next poll after a page of `kind`. */
export function waitAfterPage(
  kind: PageKind,
  window: SlidingWindow,
  now: number,
  tuning: PollBudgetTuning,
): number {
  if (kind === 'nothing') return 0;
  const floor = (ms: number) => (ms >= tuning.minSettleMs ? ms : 0);
  const settle = Math.round(tuning.receiptSettleMs * window.usedShare(now));
  const cadence = window.cadenceDelay(now, CADENCE_BURST);
  // A shorter wait is not worth a timer: the server fires timers about a second late at best
  // (measured on the dev server: every 180 ms settle fired after ~990 ms), so it would only hold
  // back the next message.
  return floor(kind === 'messages' ? cadence : Math.max(settle, cadence));
}

/**
 * Polling's heartbeat as the agent workflow sees it, owned by the poller: when the last poll
 * ended, and by when the next should have ended (`dueBy`, workflow time, answered by the state
 * query). A health check that finds that time passed knows the agent has not polled within its
 * cadence: its workflow task keeps failing, no worker serves its activity queue, or it is stuck.
 * Pure.
 */

/** What the poll loop is about to do: wait for its window then poll, poll now, or idle. */
export type PollStep = 'paced' | 'long' | 'quiet' | 'idle';

/** What the deadlines are computed from. */
export interface DeadlineTuning {
  pollTimeoutSeconds: number;
  quietPollMs: number;
  idlePollMs: number;
  /** The updates window. */
  windowMs: number;
}

/** The longest a poll may take, start to end: its activity's start-to-close timeout. */
export function pollBudgetMs(
  tuning: Omit<DeadlineTuning, 'windowMs' | 'idlePollMs'>,
  quiet: boolean,
): number {
  return (tuning.pollTimeoutSeconds + 40) * 1000 + (quiet ? tuning.quietPollMs : 0);
}

export class PollDeadline {
  /** Workflow time the last poll ended. */
  endedAt: number | undefined;
  /** Workflow time by which the next poll should have ended; none while the agent is stopped. */
  dueBy: number | undefined;

  constructor(private readonly tuning: DeadlineTuning) {}

  /** Sets by when the poll of `step` should have ended (`notBefore`: a retry wait before it). */
  expect(step: PollStep, now: number, notBefore?: number): void {
    const { windowMs } = this.tuning;
    switch (step) {
      case 'paced':
        this.dueBy = Math.max(now, notBefore ?? 0) + windowMs + pollBudgetMs(this.tuning, false);
        break;
      case 'idle':
        this.dueBy = now + this.tuning.idlePollMs + windowMs + pollBudgetMs(this.tuning, false);
        break;
      default:
        this.dueBy = now + pollBudgetMs(this.tuning, step === 'quiet');
    }
  }

  /** A poll ended (answered or failed) at `now`. */
  ended(now: number): void {
    this.endedAt = now;
  }

  /** The agent is stopped (a final refusal): no poll is due. */
  stopped(): void {
    this.dueBy = undefined;
  }
}

/**
 * The poll now open, owned by the poller: how to cancel it, and whether it is quiet. Others ask
 * the poller: continue-as-new cancels it (its page is read again next run), a reconciliation or
 * a receipt watch ends a quiet poll so that the next poll starts after its fence. Pure.
 */
export class OpenPoll {
  private cancelOpen: (() => void) | undefined;
  private quiet = false;

  /** A poll is open. */
  get isOpen(): boolean {
    return this.cancelOpen !== undefined;
  }

  /** The poll loop opened a poll that `cancel` ends. */
  opened(cancel: () => void, quiet: boolean): void {
    this.cancelOpen = cancel;
    this.quiet = quiet;
  }

  /** The poll loop's poll has ended (answered, failed or cancelled). */
  closed(): void {
    this.cancelOpen = undefined;
    this.quiet = false;
  }

  /** Cancels the open poll, if any. */
  cancel(): void {
    this.cancelOpen?.();
  }

  /** Ends the open poll if it is quiet, so that the next poll starts now. */
  endQuiet(): void {
    if (this.quiet) this.cancelOpen?.();
  }
}

/**
 * The workflow's side of quiet polling (activities/quiet-polling.ts): while polls bring nothing
 * needed now (empty pages, receipts nobody watches), one poll activity polls again by itself for
 * up to `quietPollMs`, so an idle agent costs no workflow task per long poll, nor a reply its
 * receipts. This module decides when a poll may be quiet, and records the
 * activity's extra polls in the updates window. Pure.
 */

export interface QuietPollContext {
  tuning: Tuning;
  limits: { updates: number; windowMs: number };
  window: SlidingWindow;
  /** A reconciliation waits for a poll that starts after its fence: polls return at once. */
  fenceWanted: boolean;
  /** Message ids whose receipts a conversation watches: a page with one of them comes back. */
  watched: string[];
  /** When the window has the poll's first request (as planned): the activity moves it to its answer. */
  firstAt: number;
}

/** The quiet-polling input for the next poll, or undefined for one plain long poll. */
export function quietPollingFor(ctx: QuietPollContext): QuietPollingInput | undefined {
  const { tuning } = ctx;
  if (tuning.quietPollMs <= 0 || tuning.idlePollMs > 0 || tuning.pollTimeoutSeconds <= 0) return undefined;
  if (ctx.fenceWanted) return undefined;
  return {
    forMs: tuning.quietPollMs,
    limit: ctx.limits.updates,
    windowMs: ctx.limits.windowMs,
    reserve: tuning.pollReserve,
    marginMs: tuning.pacingMarginMs,
    times: ctx.window.snapshot(),
    firstAt: ctx.firstAt,
    watched: ctx.watched,
    receiptSettleMs: tuning.receiptSettleMs,
    minSettleMs: tuning.minSettleMs,
  };
}

/** Records the empty polls a quiet poll made before the one it returned; returns how many. */
export function recordQuietPolls(window: SlidingWindow, ends: number[] | undefined): number {
  for (const end of ends ?? []) window.record(end);
  return ends?.length ?? 0;
}

/**
 * A quiet poll that failed or was cancelled told nothing of the polls it made: assume the most
 * it may have made within the last window, spaced as its pacing allows, ending `now`. Costs at
 * most a short wait; never a 429.
 */
export function assumeQuietPolls(
  window: SlidingWindow,
  quiet: QuietPollingInput,
  startedAt: number,
  now: number,
): void {
  const cap = Math.max(1, quiet.limit - quiet.reserve);
  const spacing = quiet.windowMs / cap;
  const from = Math.max(startedAt, now - quiet.windowMs);
  for (let at = now, n = 0; at > from && n < cap; at -= spacing, n++) window.record(at);
}
