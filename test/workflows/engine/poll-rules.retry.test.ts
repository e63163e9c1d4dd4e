import { PollRetry } from '../../../workflows/engine/poll-rules';
import { resolveTuning } from '../../../workflows/engine/tuning';
import { lostPollWaitMs } from '../../../protocol/agent';

const tuning = resolveTuning({
  pollTimeoutSeconds: 25,
  activityHeartbeatTimeoutMs: 10_000,
  rateLimitBackoffMs: 1000,
});

describe('when the poll loop may poll again', () => {
  it('carries its retry time in the cursor, and forgets it after an answered poll', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: 5000 };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    expect(retry.notBefore).toBe(5000);
    retry.failed(10_000, { kind: 'transient' });
    expect(retry.notBefore).toBeGreaterThan(10_000);
    expect(cursor.retryAt).toBe(retry.notBefore);
    retry.succeeded();
    expect([retry.notBefore, cursor.retryAt]).toEqual([undefined, undefined]);
  });

  it("after a poll activity timed out, waits for the lost poll's end at the service", () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    retry.failed(10_000, { kind: 'transient' });
    const backoff = retry.notBefore!;
    retry.lost(10_000, 25);
    // The poll heartbeat timeout is 5 s at most (tuning.ts).
    expect(retry.notBefore).toBe(10_000 + lostPollWaitMs(25, 5000));
    expect(retry.notBefore).toBeGreaterThan(backoff);
    expect(cursor.retryAt).toBe(retry.notBefore);
  });

  it('polls again at once after a poll given up because its worker process ended, its backoff kept', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    retry.failed(10_000, { kind: 'transient' });
    const first = retry.notBefore! - 10_000;
    retry.workerEnded();
    expect([retry.notBefore, cursor.retryAt]).toEqual([undefined, undefined]);
    // The failures before it still count: the next failure backs off further than the first did.
    retry.failed(20_000, { kind: 'transient' });
    expect(retry.notBefore! - 20_000).toBeGreaterThan(first);
  });

  it('does not back off after timed-out polls (lost workers), and still after failures the service gave', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    const timedOut = { message: 'activity Heartbeat timeout', timedOut: true };
    // Five timed-out polls in a row: each waits only for the lost poll's end at the service.
    for (let i = 0; i < 5; i++) {
      const now = 10_000 + i * 20_000;
      retry.afterFailure(now, timedOut, 25);
      expect(retry.notBefore).toBe(now + lostPollWaitMs(25, 5000));
    }
    // The next failure of the service's own is the first of its backoff, not the sixth.
    const fresh = new PollRetry({ retryAt: undefined }, tuning, () => 0.5);
    fresh.afterFailure(
      200_000,
      { message: 'connection dropped', type: 'TransportError', timedOut: false },
      25,
    );
    retry.afterFailure(
      200_000,
      { message: 'connection dropped', type: 'TransportError', timedOut: false },
      25,
    );
    expect(retry.notBefore).toBe(fresh.notBefore);
    // A poll given up by a worker whose process ended: no wait at all.
    retry.afterFailure(300_000, { message: 'ended', type: 'PollWorkerEnded', timedOut: false }, 25);
    expect(retry.notBefore).toBeUndefined();
  });

  it('polls again at once after a poll its worker cut as it stopped (a graceful shutdown), its backoff kept', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    const dropped = { message: 'connection dropped', type: 'TransportError', timedOut: false };
    retry.afterFailure(10_000, dropped, 25);
    const first = retry.notBefore! - 10_000;
    expect(first).toBeGreaterThan(0);
    // As the SDK reports a poll it cancelled on shutdown, by type and by message alike.
    for (const cut of [
      { message: 'Activity cancelled', type: 'WorkerShutdown', timedOut: false },
      { message: 'cancelled: WORKER_SHUTDOWN', timedOut: false },
    ]) {
      retry.afterFailure(20_000, cut, 25);
      expect([retry.notBefore, cursor.retryAt]).toEqual([undefined, undefined]);
    }
    // Not counted as failures: the next one backs off as the second, not the fourth.
    const second = new PollRetry({ retryAt: undefined }, tuning, () => 0.5);
    second.afterFailure(10_000, dropped, 25);
    second.afterFailure(30_000, dropped, 25);
    retry.afterFailure(30_000, dropped, 25);
    expect(retry.notBefore).toBe(second.notBefore);
  });

  it('keeps a later retry time than the lost poll needs (a 429 ladder)', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    retry.failed(10_000, { kind: 'rejected', rejection: { status: 429, retryAfterMs: 60_000 } });
    const later = retry.notBefore!;
    retry.lost(10_000, 2);
    expect(retry.notBefore).toBe(later);
  });
});

describe("a lost poll's wait handed to the next poll activity", () => {
  it("is not the loop's to wait: the next poll gets the ticket and what is left of the wait", () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    retry.lost(10_000, 25, 'wf/run/3');
    const until = 10_000 + lostPollWaitMs(25, 5000);
    expect(retry.notBefore).toBeUndefined();
    expect(retry.lostPoll(12_000)).toEqual({ ticket: 'wf/run/3', waitMs: until - 12_000 });
    // A run that moves on waits it out by a timer: the ticket is this run's.
    expect(cursor.retryAt).toBe(until);
    // Still handed on after a failed poll (the one after may not have waited), not once it is over.
    retry.failed(13_000, { kind: 'transient' });
    expect(retry.lostPoll(14_000)?.ticket).toBe('wf/run/3');
    expect(cursor.retryAt).toBe(until);
    expect(retry.lostPoll(until)).toBeUndefined();
    expect(retry.lostPoll(10_000)).toBeUndefined();
  });

  it('is forgotten once a poll was answered', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    retry.lost(10_000, 25, 'wf/run/3');
    retry.succeeded();
    expect(retry.lostPoll(11_000)).toBeUndefined();
    expect(cursor.retryAt).toBeUndefined();
  });

  it('leaves a longer 429 wait to the loop and carries the later of the two', () => {
    const cursor: { retryAt: number | undefined } = { retryAt: undefined };
    const retry = new PollRetry(cursor, tuning, () => 0.5);
    retry.failed(10_000, { kind: 'rejected', rejection: { status: 429, retryAfterMs: 60_000 } });
    const later = retry.notBefore!;
    retry.lost(10_000, 25, 'wf/run/3');
    expect(retry.notBefore).toBe(later);
    expect(cursor.retryAt).toBe(later);
  });
});
