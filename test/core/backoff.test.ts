import { exponentialBackoffMs, rateLimitBackoffMs } from '../../core/backoff';
import { parseRetryAfterMs } from '../../messaging/retry-after';

const settings = { baseMs: 500, maxMs: 30_000, rateLimitBaseMs: 5000 };

describe('backoff', () => {
  it('grows exponentially from backoffBaseMs, with jitter of up to one more step', () => {
    const low = [0, 1, 2, 3].map((n) => exponentialBackoffMs(n, { ...settings, random: () => 0 }));
    const high = [0, 1, 2, 3].map((n) => exponentialBackoffMs(n, { ...settings, random: () => 0.999999 }));
    expect(low).toEqual([500, 1000, 2000, 4000]);
    high.forEach((h, n) => expect(h).toBeCloseTo(low[n] * 2, -1));
  });

  it('stays between backoffBaseMs and backoffMaxMs whatever the jitter', () => {
    for (let n = 0; n < 20; n++) {
      const d = exponentialBackoffMs(n, settings);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(30_000);
    }
    expect(exponentialBackoffMs(10, settings)).toBe(30_000);
  });

  it('jitters: two draws of the same retry differ', () => {
    const draws = new Set(Array.from({ length: 10 }, () => exponentialBackoffMs(2, settings)));
    expect(draws.size).toBeGreaterThan(1);
  });

  it('waits 5, 10, 20 s after successive 429s without Retry-After', () => {
    expect([0, 1, 2].map((n) => rateLimitBackoffMs(n, settings))).toEqual([5000, 10_000, 20_000]);
    expect(rateLimitBackoffMs(5, settings)).toBe(30_000);
  });

  it.each([
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    [' 2 ', 2000],
    [['4', '9'], 4000],
  ])('reads Retry-After %j as %i ms', (header, ms) => {
    expect(parseRetryAfterMs(header)).toBe(ms);
  });

  it('reads an HTTP-date Retry-After relative to now, and ignores garbage', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfterMs('Tue, 01 Jan 2030 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});
