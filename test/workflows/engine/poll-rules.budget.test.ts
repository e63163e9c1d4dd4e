import { pageKind, waitAfterPage } from '../../../workflows/engine/poll-rules';
import { SlidingWindow } from '../../../core/sliding-window';

const tuning = { receiptSettleMs: 4000, minSettleMs: 0 };
const CADENCE = 60_000 / 14;

describe('poll budget', () => {
  it('tells a page of messages, of receipts only, and nothing apart', () => {
    expect(pageKind({ status: 'page', messages: [{}], statuses: [{}] })).toBe('messages');
    expect(pageKind({ status: 'page', messages: [], statuses: [{}] })).toBe('receipts');
    expect(pageKind({ status: 'empty' })).toBe('nothing');
    expect(pageKind({ status: 'replaced' })).toBe('nothing');
  });

  it('polls again at once after nothing, and after a message in a calm chat', () => {
    const busy = new SlidingWindow(
      15,
      60_000,
      Array.from({ length: 14 }, (_, i) => i),
    );
    expect(waitAfterPage('nothing', busy, 100, tuning)).toBe(0);
    const calm = new SlidingWindow(15, 60_000, [0, 30_000]);
    expect(waitAfterPage('messages', calm, 60_000, tuning)).toBe(0);
  });

  it('keeps an even cadence with a burst of one: two polls at once, then one per 60 s / 14', () => {
    const window = new SlidingWindow(15, 60_000, [10_000]);
    expect(waitAfterPage('messages', window, 10_100, tuning)).toBe(0);
    window.record(10_100);
    expect(waitAfterPage('messages', window, 10_200, tuning)).toBe(Math.round(10_000 + CADENCE - 10_200));
  });

  it('settles after receipts in proportion to the budget spent: none when fresh', () => {
    expect(waitAfterPage('receipts', new SlidingWindow(15, 60_000), 0, tuning)).toBe(0);
    // A third spent, long ago enough for the cadence: the settle alone (4 s × 1/3).
    const third = new SlidingWindow(15, 60_000, [0, 5000, 10_000, 15_000, 20_000]);
    expect(waitAfterPage('receipts', third, 50_000, tuning)).toBe(Math.round(4000 / 3));
  });

  it('after receipts in a busy window, waits the settle or the cadence, never for the oldest poll to age out', () => {
    // 13 of 15 used, one each second: the settle (4 s × 13/15) is longer than the cadence's wait.
    const window = new SlidingWindow(
      15,
      60_000,
      Array.from({ length: 13 }, (_, i) => i * 1000),
    );
    expect(waitAfterPage('receipts', window, 20_000, tuning)).toBe(
      Math.max(Math.round((4000 * 13) / 15), window.cadenceDelay(20_000, 1)),
    );
    expect(waitAfterPage('receipts', window, 20_000, tuning)).toBeLessThan(40_000);
  });

  it('skips a settle shorter than the timer resolution', () => {
    const withFloor = { ...tuning, minSettleMs: 1000 };
    // A fifth of the budget spent long ago: 800 ms would be asked, under the floor, so none.
    const fifth = new SlidingWindow(15, 60_000, [0, 10_000, 20_000]);
    expect(waitAfterPage('receipts', fifth, 40_000, withFloor)).toBe(0);
  });

  it('in a saturated live chat: never more than 15 polls a minute, a message waits one cadence at most', () => {
    // The human writes every 5 s; each message's replies bring receipts 2.5 s later: an event
    // every 2.5 s, more than 15 polls a minute could each take. A poll takes 50 ms and returns
    // what came since the last one; the next starts after waitAfterPage (and the window's own
    // hard wait, as the agent's pacing adds it).
    const window = new SlidingWindow(15, 60_000);
    const events = Array.from({ length: 240 }, (_, i) => ({ at: i * 2500, message: i % 2 === 0 }));
    const pickups: number[] = [];
    const starts: number[] = [];
    let now = 0;
    let next = 0;
    while (next < events.length) {
      if (events[next].at > now) now = events[next].at; // an idle long poll returns at the event
      now += window.delay(now); // the hard limit, as the agent's pacing keeps it
      window.record(now);
      starts.push(now);
      now += 50;
      const page = events.filter((e, i) => i >= next && e.at <= now);
      next += page.length;
      for (const e of page) if (e.message) pickups.push(now - e.at);
      const kind = page.some((e) => e.message) ? 'messages' : page.length ? 'receipts' : 'nothing';
      now += waitAfterPage(kind, window, now, tuning);
    }
    for (const s of starts)
      expect(starts.filter((t) => t > s - 60_000 && t <= s).length).toBeLessThanOrEqual(15);
    pickups.sort((a, b) => a - b);
    // Half a cadence on average: the polls are spread evenly, not bunched.
    expect(pickups[Math.floor(pickups.length / 2)]).toBeLessThanOrEqual(CADENCE / 2 + 500);
    expect(pickups.at(-1)).toBeLessThanOrEqual(CADENCE + 100);
  });
});
