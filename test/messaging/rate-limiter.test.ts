import { RollingWindowLimiter } from '../../messaging';
import { FakeClock, settle } from './fake-clock';

/** Starts `n` calls at once; each records the clock time at which it was let through. */
function burst(limiter: RollingWindowLimiter, clock: FakeClock, n: number, signal?: AbortSignal) {
  const started: number[] = [];
  const calls = Array.from({ length: n }, (_, i) =>
    limiter.run(async () => {
      started[i] = clock.now();
    }, signal),
  );
  return { started, calls };
}

describe('RollingWindowLimiter', () => {
  it('lets `limit` calls through at once and the next exactly when the oldest ages out', async () => {
    const clock = new FakeClock();
    const limiter = new RollingWindowLimiter({ limit: 3, windowMs: 1000, clock });
    const { started } = burst(limiter, clock, 4);
    await settle();
    expect(started.filter((t) => t !== undefined)).toEqual([0, 0, 0]);
    await clock.advance(999);
    expect(started[3]).toBeUndefined();
    await clock.advance(1);
    expect(started[3]).toBe(1000);
  });

  it('paces a burst to `limit` per window, in call order, under concurrent callers', async () => {
    const clock = new FakeClock();
    const limiter = new RollingWindowLimiter({ limit: 2, windowMs: 1000, clock });
    const a = burst(limiter, clock, 3);
    const b = burst(limiter, clock, 3);
    await clock.advance(5000);
    await Promise.all([...a.calls, ...b.calls]);
    // Call order: a0 a1 a2 b0 b1 b2, two per window.
    expect([...a.started, ...b.started]).toEqual([0, 0, 1000, 1000, 2000, 2000]);
  });

  it('counts a call from when it finished, so a slow call holds its slot longer', async () => {
    const clock = new FakeClock();
    const limiter = new RollingWindowLimiter({ limit: 1, windowMs: 1000, clock });
    let finish!: () => void;
    const slow = limiter.run(() => new Promise<void>((resolve) => (finish = resolve)));
    const { started } = burst(limiter, clock, 1);
    await clock.advance(300);
    finish();
    await slow;
    await clock.advance(999);
    expect(started[0]).toBeUndefined();
    await clock.advance(1);
    expect(started[0]).toBe(1300);
  });

  it('records a failed call too', async () => {
    const clock = new FakeClock();
    const limiter = new RollingWindowLimiter({ limit: 1, windowMs: 1000, clock });
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.used).toBe(1);
    const { started } = burst(limiter, clock, 1);
    await clock.advance(1000);
    expect(started[0]).toBe(1000);
  });

  it('drops an aborted waiter without using a slot and keeps serving the others', async () => {
    const clock = new FakeClock();
    const limiter = new RollingWindowLimiter({ limit: 1, windowMs: 1000, clock });
    await limiter.run(async () => undefined);
    const controller = new AbortController();
    const aborted = limiter.run(async () => 'never', controller.signal);
    const { started } = burst(limiter, clock, 1);
    await settle();
    expect(limiter.waiting).toBe(2);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(limiter.waiting).toBe(1);
    await clock.advance(1000);
    expect(started[0]).toBe(1000);
    expect(limiter.used).toBe(1);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = new RollingWindowLimiter({ limit: 1, windowMs: 1000, clock: new FakeClock() });
    await expect(limiter.run(async () => 1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(limiter.used).toBe(0);
  });

  it('rejects a non-positive limit', () => {
    expect(() => new RollingWindowLimiter({ limit: 0, windowMs: 1000 })).toThrow(RangeError);
  });
});
