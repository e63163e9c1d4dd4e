import { QuietPolling, type QuietPollingInput } from '../../../activities/quiet-polling';
import { assumeQuietPolls, quietPollingFor, recordQuietPolls } from '../../../workflows/engine/poll-rules';
import { DEFAULT_TUNING } from '../../../workflows/engine/tuning';
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

/** Follows the activity's decisions after polls answered at once, from `at`: when each poll went. */
function pollsFrom(quiet: QuietPolling, at: number): number[] {
  const starts = [at];
  for (;;) {
    const decision = quiet.afterPoll('nothing', at);
    if (decision.action === 'return') return starts;
    at += decision.afterMs;
    starts.push(at);
  }
}

describe('quiet polling (the poll activity polls again while polls bring nothing needed now)', () => {
  it('polls again at once after an empty long poll, and lists it for the workflow', () => {
    const quiet = new QuietPolling(spec, 0, POLL_MS);
    expect(quiet.afterPoll('nothing', 25_000)).toEqual({ action: 'poll', afterMs: 0 });
    expect(quiet.afterPoll('nothing', 50_000)).toEqual({ action: 'poll', afterMs: 0 });
    expect(quiet.pollEnds).toEqual([25_000, 50_000]);
  });

  it('is quiet for `quietPollMs`, and not at all while a reconciliation waits for a fence', () => {
    const context = {
      tuning: { ...DEFAULT_TUNING, quietPollMs: 300_000 },
      limits: { updates: 15, windowMs: 60_000 },
      window: new SlidingWindow(15, 60_000),
      fenceWanted: false,
      watched: ['wamid.1'],
      firstAt: 100_000,
    };
    expect(quietPollingFor(context)).toMatchObject({
      forMs: 300_000,
      firstAt: 100_000,
      watched: ['wamid.1'],
    });
    expect(quietPollingFor({ ...context, fenceWanted: true })).toBeUndefined();
    expect(quietPollingFor({ ...context, tuning: { ...context.tuning, quietPollMs: 0 } })).toBeUndefined();
  });

  it('returns the empty page once another poll would not end before `forMs`', () => {
    const quiet = new QuietPolling(spec, 0, POLL_MS);
    let decisions = 0;
    for (let at = 25_000; quiet.afterPoll('nothing', at).action === 'poll'; at += 25_000) decisions++;
    // Polls ending at 25, 50, ..., 250 s are followed by another; the one ending at 275 s is not
    // (another would end after 300 s), and it is the workflow's to record.
    expect(decisions).toBe(10);
    expect(quiet.pollEnds).toHaveLength(10);
    expect(Math.max(...quiet.pollEnds)).toBe(250_000);
  });

  it('keeps the workflow window: with the budget spent but the reserve, it waits for a slot', () => {
    // 12 polls recorded by the workflow in the last seconds (a busy chat) and the empty poll that
    // just ended, which the workflow recorded when it planned it: 13 = limit - reserve, so the
    // next waits until the oldest leaves the window (plus margin).
    const times = [...Array.from({ length: 12 }, (_, i) => 1000 + i * 100), 2000];
    const quiet = new QuietPolling({ ...spec, times }, 2000, POLL_MS);
    expect(quiet.afterPoll('nothing', 3000)).toEqual({ action: 'poll', afterMs: 1000 + 60_000 - 3000 + 100 });
  });

  it('never exceeds limit - reserve in any window, even if the server answered empty at once', () => {
    // The first poll, at 0, is the workflow's own: recorded when it was planned.
    const starts = pollsFrom(new QuietPolling({ ...spec, forMs: 600_000, times: [0] }, 0, 0), 0);
    for (const s of starts) {
      expect(starts.filter((t) => t > s - 60_000 && t <= s).length).toBeLessThanOrEqual(13);
    }
    expect(starts.length).toBeGreaterThan(100); // it went on for the whole 10 minutes
  });

  it('counts every poll from its answer: a first poll the service took in late does not let a 14th through', () => {
    // The workflow recorded the first poll at 0, when it planned it; the service, slow to take
    // it in, counted it at 59 s, when it answered. Every later poll is answered (and counted) at
    // once, empty.
    const counted = pollsFrom(
      new QuietPolling({ ...spec, forMs: 200_000, times: [0], firstAt: 0 }, 0, 0),
      59_000,
    );
    for (const s of counted) {
      expect(counted.filter((t) => t > s - 60_000 && t <= s).length).toBeLessThanOrEqual(13);
    }
  });

  it('reports the polls it made when one fails: the failed one too, unless it was the first', () => {
    const first = new QuietPolling(spec, 0, POLL_MS);
    expect(first.failedAt(1000)).toEqual([]);
    const later = new QuietPolling(spec, 0, POLL_MS);
    later.afterPoll('nothing', 25_000);
    later.afterPoll('nothing', 50_000);
    expect(later.failedAt(50_300)).toEqual([25_000, 50_000, 50_300]);
  });
});

describe('quiet polling past receipts nobody watches', () => {
  const receipts: QuietPollingInput = { ...spec, watched: ['w1'], receiptSettleMs: 4000, minSettleMs: 1000 };

  it('reads past a page of receipts of unwatched messages, and returns one with a watched receipt', () => {
    const quiet = new QuietPolling(receipts, 0, POLL_MS);
    expect(quiet.mayReadPast(['m1', 'm2'])).toBe(true);
    expect(quiet.mayReadPast(['m1', 'w1'])).toBe(false);
    // Without a watch list (a reconciliation, or no quiet polling): every page comes back.
    expect(new QuietPolling(spec, 0, POLL_MS).mayReadPast(['m1'])).toBe(false);
  });

  it('lets receipts settle by the budget in use and keeps the even cadence', () => {
    // A fresh window: the first receipt page is followed by a poll at once.
    const fresh = new QuietPolling({ ...receipts, times: [0] }, 0, POLL_MS);
    expect(fresh.afterPoll('receipts', 100)).toEqual({ action: 'poll', afterMs: 0 });
    // Six polls in the last seconds: the next waits for the cadence (60 s / 14 each, one burst).
    const busy = new QuietPolling({ ...receipts, times: [0, 500, 1000, 1500, 2000, 2500] }, 2500, POLL_MS);
    const decision = busy.afterPoll('receipts', 2600);
    expect(decision.action).toBe('poll');
    expect((decision as { afterMs: number }).afterMs).toBeGreaterThanOrEqual(4000);
    // An empty poll (nothing came for a whole long poll) keeps no cadence.
    const idle = new QuietPolling({ ...receipts, times: [0, 500, 1000, 1500, 2000, 2500] }, 2500, POLL_MS);
    expect(idle.afterPoll('nothing', 27_500)).toEqual({ action: 'poll', afterMs: 0 });
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
