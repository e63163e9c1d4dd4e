import { ActivationClock } from '../../../workflows/engine/activation-guard';

describe("the stale-clock guard's rule", () => {
  const stamp = (historyLength: number, now: number, replaying = false) => ({
    historyLength,
    now,
    replaying,
  });

  it('lets every activation of a run whose clock moves with its history run', () => {
    const clock = new ActivationClock();
    expect(clock.check(stamp(3, 1000, true))).toBeUndefined();
    expect(clock.check(stamp(8, 6000, true))).toBeUndefined();
    expect(clock.check(stamp(13, 9000))).toBeUndefined();
    // A second activation of the same task (same history, same clock) is no new task.
    expect(clock.check(stamp(13, 9000))).toBeUndefined();
  });

  it('refuses a live activation on a longer history that kept the clock of the one before', () => {
    const clock = new ActivationClock();
    clock.check(stamp(3, 1000, true));
    expect(clock.check(stamp(7, 1000))).toMatch(
      /stale workflow clock: an activation on 7 history events .* the one on 3/,
    );
    // Or an older one.
    const older = new ActivationClock();
    older.check(stamp(3, 1000, true));
    expect(older.check(stamp(7, 900))).toMatch(/stale workflow clock/);
  });

  it('never refuses a replay (its clock is the history’s) nor the first activation of a run', () => {
    const clock = new ActivationClock();
    expect(clock.check(stamp(7, 1000))).toBeUndefined();
    expect(clock.check(stamp(9, 1000, true))).toBeUndefined();
  });
});
