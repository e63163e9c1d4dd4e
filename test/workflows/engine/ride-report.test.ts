import { rideReport, unreportedRide } from '../../../workflows/engine/ride-report';
import { DEFAULT_TUNING } from '../../../workflows/engine/tuning';

describe("a poll's mark-read report, in the status queue's terms", () => {
  it('passes done and refused through; no report means the poll told nothing', () => {
    expect(rideReport(undefined, DEFAULT_TUNING)).toBeUndefined();
    expect(rideReport({ done: ['a'], refused: ['b'], times: [1, 2] }, DEFAULT_TUNING)).toEqual({
      done: ['a'],
      refused: ['b'],
    });
  });

  it('after a failure that may pass: Retry-After when the service sent one, else the first backoff rung', () => {
    const rateLimited = { done: [], refused: [], times: [1], failure: '429', retryAfterMs: 7000 };
    expect(rideReport(rateLimited, DEFAULT_TUNING)?.retry).toEqual({ waitMs: 7000 });
    const dropped = { done: [], refused: [], times: [1], failure: 'socket hang up' };
    const waitMs = rideReport(dropped, DEFAULT_TUNING)!.retry!.waitMs;
    expect(waitMs).toBeGreaterThanOrEqual(DEFAULT_TUNING.backoffBaseMs / 2);
    expect(waitMs).toBeLessThanOrEqual(DEFAULT_TUNING.backoffMaxMs);
    // Retry-After honoured past the backoff's cap (a shorter wait would be too soon after the
    // 429); an absurd one bounded at 5 minutes.
    const shortCap = { ...DEFAULT_TUNING, backoffMaxMs: 375 };
    expect(rideReport({ ...rateLimited, retryAfterMs: 1000 }, shortCap)?.retry).toEqual({ waitMs: 1000 });
    expect(rideReport({ ...rateLimited, retryAfterMs: 3_600_000 }, DEFAULT_TUNING)?.retry).toEqual({
      waitMs: 300_000,
    });
  });

  it('a poll that told nothing: its mark-reads wait as after a failure, a timed-out one at least a heartbeat timeout', () => {
    const firstRung = rideReport({ done: [], refused: [], times: [], failure: 'x' }, DEFAULT_TUNING)!.retry!
      .waitMs;
    // Cancelled or failed: a 429 its riders met is unknown, so not at once.
    expect(unreportedRide(false, 5000, DEFAULT_TUNING)).toEqual({
      done: [],
      refused: [],
      retry: { waitMs: firstRung },
    });
    // Timed out: it may still run on a slow worker until its next heartbeat, its riders with it.
    expect(unreportedRide(true, firstRung + 4000, DEFAULT_TUNING).retry).toEqual({
      waitMs: firstRung + 4000,
    });
    expect(unreportedRide(true, 1, DEFAULT_TUNING).retry).toEqual({ waitMs: firstRung });
  });
});
