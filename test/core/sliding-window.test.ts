import { SlidingWindow } from '../../core/sliding-window';

describe('sliding window', () => {
  it('lets `limit` requests start in a window, then the next when the oldest ages out', () => {
    const window = new SlidingWindow(3, 1000);
    for (const at of [0, 10, 20]) {
      expect(window.delay(at)).toBe(0);
      window.record(at);
    }
    expect(window.delay(500)).toBe(500);
    expect(window.delay(1000)).toBe(0);
  });

  it('counts a request from when it was over, so one that waited in a queue is not counted too early', () => {
    const window = new SlidingWindow(1, 1000);
    const confirm = window.record(0);
    // The request only left (and was answered) at 700: the service counts it from then.
    confirm(700);
    expect(window.delay(1000)).toBe(700);
    expect(window.delay(1700)).toBe(0);
  });

  it('never moves a record earlier, and keeps failed requests counted', () => {
    const window = new SlidingWindow(2, 1000);
    window.record(100)(50);
    window.record(200);
    expect(window.delay(300)).toBe(800);
    expect(window.snapshot()).toEqual([100, 200]);
  });
});
