/** The simulated clock: speed factor, injected time source, jumps, and timers on simulated time. */
import { SimClock } from '../../simulator/clock';

it('runs speed times as fast as the injected real time', () => {
  let real = 1_000_000;
  const clock = new SimClock({ speed: 10, now: () => real });
  const start = clock.now();
  real += 500;
  expect(clock.now() - start).toBe(5000);
});

it('jumps forward by advance', () => {
  const clock = new SimClock({ now: () => 0 });
  clock.advance(1234);
  expect(clock.now()).toBe(1234);
});

it('fires a timer when a jump makes it due, not before', async () => {
  const clock = new SimClock({ now: () => 0 });
  let fired = 0;
  clock.setTimer(60_000, () => (fired += 1));
  clock.advance(59_999);
  await new Promise((resolve) => setImmediate(resolve));
  expect(fired).toBe(0);
  clock.advance(1);
  await new Promise((resolve) => setImmediate(resolve));
  expect(fired).toBe(1);
});

it('does not fire a timer cancelled after it fell due but before it fired', async () => {
  // A control reset handled between a receipt's timer falling due and its callback: the receipt
  // of a message the reset removed must not appear in the fresh state.
  const clock = new SimClock({ now: () => 0 });
  let fired = 0;
  const cancel = clock.setTimer(50, () => (fired += 1));
  clock.advance(50);
  cancel();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect(fired).toBe(0);
});

it('fires a timer after its simulated delay divided by the speed, in real time', async () => {
  const clock = new SimClock({ speed: 100 });
  const start = performance.now();
  await new Promise<void>((resolve) => clock.setTimer(10_000, resolve));
  const elapsed = performance.now() - start;
  expect(elapsed).toBeGreaterThanOrEqual(95);
  expect(elapsed).toBeLessThan(1000);
});

it('does not fire a cancelled timer', async () => {
  const clock = new SimClock({ now: () => 0 });
  let fired = false;
  const cancel = clock.setTimer(10, () => (fired = true));
  cancel();
  clock.advance(100);
  await new Promise((resolve) => setImmediate(resolve));
  expect(fired).toBe(false);
});

it.each([0, -1, Number.NaN])('rejects speed %p', (speed) => {
  expect(() => new SimClock({ speed })).toThrow(RangeError);
});
