import { QuietPolling, type QuietPollingInput } from '../../../activities/quiet-polling';
import { assumeQuietPolls, recordQuietPolls } from '../../../workflows/engine/quiet-poll';
import { SlidingWindow } from '../../../core/sliding-window';

const spec: QuietPollingInput = {
  forMs: 300_000,
  limit: 15,
  windowMs: 60_000,
  reserve: 2,
  marginMs: 100,
  times: [],
};
const POLL_MS = 30_000; // a 25 s long poll and its slack

describe('quiet polling (the poll activity polls again while pages are empty)', () => {
  it('polls again at once after an empty long poll, and lists it for the workflow', () => {
    const quiet = new QuietPolling(spec, 0, POLL_MS);
    expect(quiet.afterEmptyPoll(25_000)).toEqual({ action: 'poll', afterMs: 0 });
    expect(quiet.afterEmptyPoll(50_000)).toEqual({ action: 'poll', afterMs: 0 });
    expect(quiet.emptyPollEnds).toEqual([25_000, 50_000]);
  });

  it('returns the empty page once another poll would not end before `forMs`', () => {
    const quiet = new QuietPolling(spec, 0, POLL_MS);
    let decisions = 0;
    for (let at = 25_000; quiet.afterEmptyPoll(at).action === 'poll'; at += 25_000) decisions++;
    // Polls ending at 25, 50, ..., 250 s are followed by another; the one ending at 275 s is not
    // (another would end after 300 s), and it is the workflow's to record.
    expect(decisions).toBe(10);
    expect(quiet.emptyPollEnds).toHaveLength(10);
    expect(Math.max(...quiet.emptyPollEnds)).toBe(250_000);
  });

  it('keeps the workflow window: with the budget spent but the reserve, it waits for a slot', () => {
    // 12 polls recorded by the workflow in the last seconds (a busy chat) and one empty poll now:
    // 13 = limit - reserve, so the next waits until the oldest leaves the window (plus margin).
    const times = Array.from({ length: 12 }, (_, i) => 1000 + i * 100);
    const quiet = new QuietPolling({ ...spec, times }, 2000, POLL_MS);
    expect(quiet.afterEmptyPoll(3000)).toEqual({ action: 'poll', afterMs: 1000 + 60_000 - 3000 + 100 });
  });

  it('never exceeds limit - reserve in any window, even if the server answered empty at once', () => {
    const quiet = new QuietPolling({ ...spec, forMs: 600_000 }, 0, 0);
    const starts: number[] = [0];
    let at = 0;
    for (;;) {
      const decision = quiet.afterEmptyPoll(at);
      if (decision.action === 'return') break;
      at += decision.afterMs;
      starts.push(at);
    }
    for (const s of starts) {
      expect(starts.filter((t) => t > s - 60_000 && t <= s).length).toBeLessThanOrEqual(13);
    }
    expect(starts.length).toBeGreaterThan(100); // it went on for the whole 10 minutes
  });
});

describe("quiet polls in the workflow's window", () => {
  it('records the empty polls the activity reported', () => {
    const window = new SlidingWindow(15, 60_000);
    expect(recordQuietPolls(window, [1000, 26_000])).toBe(2);
    expect(recordQuietPolls(window, undefined)).toBe(0);
    expect(window.snapshot()).toEqual([1000, 26_000]);
  });

  it('after a failed quiet poll, assumes the most it may have made in the last window', () => {
    const window = new SlidingWindow(15, 60_000);
    assumeQuietPolls(window, spec, 0, 300_000);
    expect(window.snapshot()).toHaveLength(13);
    // Spaced as its pacing allows: the next poll waits one spacing at most, never a window.
    expect(window.delayKeeping(300_000, 2)).toBeLessThanOrEqual(60_000 / 13 + 1);
    // A quiet poll that ran for a second may have made one poll.
    const short = new SlidingWindow(15, 60_000);
    assumeQuietPolls(short, spec, 299_000, 300_000);
    expect(short.snapshot()).toEqual([300_000]);
  });
});
