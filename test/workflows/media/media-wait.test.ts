import { mediaWaitMs } from '../../../workflows/media/media-rules';

describe("media's waits after a 429 or 503 (the one backoff policy, core/backoff.ts)", () => {
  it("honours the service's Retry-After exactly", () => {
    expect(mediaWaitMs(0, { status: 429, retryAfterMs: 7_000 })).toBe(7_000);
    expect(mediaWaitMs(2, { status: 503, retryAfterMs: 0 })).toBe(1);
  });

  it('waits 5, 10, 20 s after a 429 without Retry-After (the spec’s ladder, no jitter)', () => {
    expect([0, 1, 2].map((n) => mediaWaitMs(n, { status: 429 }, () => 0.99))).toEqual([
      5_000, 10_000, 20_000,
    ]);
    expect(mediaWaitMs(0, undefined)).toBe(5_000);
  });

  it('backs off exponentially with jitter after a 503: [0.5, 1), [1, 2), [2, 4) s', () => {
    expect([0, 1, 2].map((n) => mediaWaitMs(n, { status: 503 }, () => 0))).toEqual([500, 1_000, 2_000]);
    expect([0, 1, 2].map((n) => mediaWaitMs(n, { status: 503 }, () => 0.5))).toEqual([750, 1_500, 3_000]);
  });
});
