import { exponentialBackoffMs } from '../../../core/backoff';
import { SlidingWindow } from '../../../core/sliding-window';
import {
  FRESH_RETRY_STATE,
  backoffMs,
  decide,
  retryAfterRejection,
  retryAllowed,
} from '../../../workflows/engine/request-policy';

const tuning = { rateLimitBackoffMs: 5000, backoffBaseMs: 500, backoffMaxMs: 30_000 };

describe('send policy: decide(window, now, request)', () => {
  it('sends at once while the window has a slot', () => {
    const window = new SlidingWindow(12, 60_000);
    for (let i = 0; i < 11; i++) window.record(1000 + i);
    expect(decide(window, 2000, {}, 100)).toEqual({ action: 'send' });
  });

  it('waits until the oldest request ages out, plus the margin, when the window is full', () => {
    const window = new SlidingWindow(12, 60_000);
    for (let i = 0; i < 12; i++) window.record(1000 + i * 10);
    expect(decide(window, 5000, {}, 100)).toEqual({ action: 'wait', ms: 61_000 - 5000 + 100 });
    // The 13th goes exactly when the first ages out.
    expect(decide(window, 61_000, {}, 100)).toEqual({ action: 'send' });
  });

  it('waits for the request’s own notBefore (Retry-After, backoff) before looking at the window', () => {
    const window = new SlidingWindow(12, 60_000);
    expect(decide(window, 1000, { notBefore: 4000 }, 100)).toEqual({ action: 'wait', ms: 3000 });
    expect(decide(window, 4000, { notBefore: 4000 }, 100)).toEqual({ action: 'send' });
  });
});

describe('send policy: after a rejection', () => {
  it('honours Retry-After exactly and keeps the ladder where it was', () => {
    const next = retryAfterRejection(
      FRESH_RETRY_STATE,
      { status: 429, retryAfterMs: 1234 },
      tuning,
      () => 0.5,
    );
    expect(next.waitMs).toBe(1234);
    expect(next.state).toEqual({ ...FRESH_RETRY_STATE, rejections: 1 });
  });

  it('runs 5, 10, 20 s after 429s without Retry-After, then backoff_max (a poll goes on retrying)', () => {
    let state = FRESH_RETRY_STATE;
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const next = retryAfterRejection(state, { status: 429 }, tuning, () => 0.5);
      waits.push(next.waitMs);
      state = next.state;
    }
    expect(waits).toEqual([5000, 10_000, 20_000, 30_000, 30_000, 30_000]);
  });

  it('backs off exponentially with jitter between the bounds after a 503', () => {
    let state = FRESH_RETRY_STATE;
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const next = retryAfterRejection(state, { status: 503 }, tuning, () => 0);
      waits.push(next.waitMs);
      state = next.state;
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    // The one policy of core/backoff.ts: a draw from [base * 2^n, base * 2^(n+1)), in whole ms.
    expect(backoffMs(2, tuning, () => 0.5)).toBe(
      exponentialBackoffMs(2, { baseMs: 500, maxMs: 30_000, rateLimitBaseMs: 5000, random: () => 0.5 }),
    );
    expect(backoffMs(1, tuning, () => 0.999)).toBe(1999);
    for (const random of [0, 0.3, 0.99]) {
      for (let attempt = 0; attempt < 10; attempt++) {
        const ms = backoffMs(attempt, tuning, () => random);
        expect(ms).toBeGreaterThanOrEqual(500);
        expect(ms).toBeLessThanOrEqual(30_000);
      }
    }
  });
});

describe('send policy: retry budgets', () => {
  it('allows the spec’s three retries after rejections, then gives up', () => {
    let state = FRESH_RETRY_STATE;
    const allowed: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      allowed.push(retryAllowed(state, 'rejection', 4));
      state = retryAfterRejection(state, { status: 503 }, tuning, () => 0.5).state;
    }
    expect(allowed).toEqual([true, true, true, false]);
  });

  it('keeps resends after an ambiguous outcome (a worker lost mid-send) out of the rejection budget', () => {
    const afterCrashes = { ...FRESH_RETRY_STATE, attempts: 3, resends: 2 };
    expect(retryAllowed(afterCrashes, 'rejection', 4)).toBe(true);
    expect(retryAllowed(afterCrashes, 'resend', 4)).toBe(true);
    expect(retryAllowed({ ...afterCrashes, resends: 3 }, 'resend', 4)).toBe(false);
  });
});
