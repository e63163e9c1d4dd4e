import { rideReport } from '../../../workflows/engine/statuses';
import { DEFAULT_TUNING } from '../../../workflows/engine/tuning';

describe("a vehicle's mark-read report, in the status queue's terms", () => {
  it('passes done, refused and the request times through; nothing failed, no wait', () => {
    expect(rideReport({ done: ['a'], refused: ['b'], failed: [], times: [1, 2] }, DEFAULT_TUNING)).toEqual({
      done: ['a'],
      refused: ['b'],
      failed: [],
      unknown: [],
      times: [1, 2],
    });
  });

  it('of unknown outcome: again at once, no wait', () => {
    const dropped = {
      done: [],
      refused: [],
      failed: [],
      unknown: ['a'],
      times: [1],
      failure: 'socket hang up',
    };
    expect(rideReport(dropped, DEFAULT_TUNING)).toEqual({
      done: [],
      refused: [],
      failed: [],
      unknown: ['a'],
      times: [1],
    });
  });

  it('after a failure that may pass: Retry-After when the service sent one, else the first backoff rung', () => {
    const rateLimited = {
      done: [],
      refused: [],
      failed: ['a'],
      times: [1],
      failure: '429',
      retryAfterMs: 7000,
    };
    expect(rideReport(rateLimited, DEFAULT_TUNING).retry).toEqual({ waitMs: 7000 });
    const refused503 = { done: [], refused: [], failed: ['a'], times: [1], failure: '503' };
    const waitMs = rideReport(refused503, DEFAULT_TUNING).retry!.waitMs;
    expect(waitMs).toBeGreaterThanOrEqual(DEFAULT_TUNING.backoffBaseMs / 2);
    expect(waitMs).toBeLessThanOrEqual(DEFAULT_TUNING.backoffMaxMs);
    // Retry-After honoured past the backoff's cap (a shorter wait would be too soon after the
    // 429); an absurd one bounded at 5 minutes.
    const shortCap = { ...DEFAULT_TUNING, backoffMaxMs: 375 };
    expect(rideReport({ ...rateLimited, retryAfterMs: 1000 }, shortCap).retry).toEqual({ waitMs: 1000 });
    expect(rideReport({ ...rateLimited, retryAfterMs: 3_600_000 }, DEFAULT_TUNING).retry).toEqual({
      waitMs: 300_000,
    });
  });
});
