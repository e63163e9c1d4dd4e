/**
 * When the poll loop may poll again after failed polls: the 429 ladder after a rejection, the
 * backoff after other failures, and the wait for a lost poll's end at the service after a poll
 * activity timed out (the poll lease: protocol/poll-lease.ts), with no backoff: a timed-out
 * activity lost its worker (killed, or cut off from Temporal), which says nothing against the
 * service, and the next attempt goes to another worker. (Backing off there too, a run of
 * partitions one after another left an agent polling once in 30 s: a conversation's last reply,
 * whose ambiguous send waited for a poll to be reconciled, came after the human gave up.) The time is carried across
 * continue-as-new (`cursor.retryAt`): a run that moves on must not poll sooner than this one may.
 * Pure (the `Math.random` it is given is seeded per run by the SDK in workflow code).
 */
import type { LostPollInput } from '../../activities/types';
import { lostPollWaitMs } from '../../protocol/poll-lease';
import { pollHeartbeatTimeoutMs } from './activity-proxies';
import { isWorkerEnded, requestVerdict, type FailureInfo } from './failure';
import type { PollCursor } from './poll-cursor';
import { FRESH_RETRY_STATE, backoffMs, retryAfterRejection, type RetryState } from './send-policy';
import type { Tuning } from './tuning';

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
   * timed-out attempt's): given up by a worker whose process ended, no wait; timed out, the lost
   * poll's wait and no backoff; refused, the 429 ladder; any other failure, the backoff.
   */
  afterFailure(now: number, info: FailureInfo, timeoutSeconds: number, ticket?: string): void {
    if (isWorkerEnded(info)) this.workerEnded();
    else if (info.timedOut) this.lost(now, timeoutSeconds, ticket);
    else this.failed(now, requestVerdict(info));
  }

  /**
   * A poll was given up because its worker process ended (worker/ended-polls.ts), once the close
   * grace had passed: the next goes whenever the window allows, with no backoff, the failures
   * counted so far unchanged.
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
