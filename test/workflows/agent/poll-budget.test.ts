import { pageKind, waitAfterPage } from '../../../workflows/agent/poll-budget';
import { SlidingWindow } from '../../../workflows/agent/sliding-window';

const tuning = { receiptSettleMs: 4000, pollReserve: 2, minSettleMs: 0 };

describe('poll budget', () => {
  it('tells a page of messages, of receipts only, and nothing apart', () => {
    expect(pageKind({ status: 'page', messages: [{}], statuses: [{}] })).toBe('messages');
    expect(pageKind({ status: 'page', messages: [], statuses: [{}] })).toBe('receipts');
    expect(pageKind({ status: 'empty' })).toBe('nothing');
    expect(pageKind({ status: 'replaced' })).toBe('nothing');
  });

  it('polls again at once after a message or nothing, whatever the budget', () => {
    const window = new SlidingWindow(
      15,
      60_000,
      Array.from({ length: 14 }, (_, i) => i),
    );
    expect(waitAfterPage('messages', window, 100, tuning)).toBe(0);
    expect(waitAfterPage('nothing', window, 100, tuning)).toBe(0);
  });

  it('settles after receipts in proportion to the budget spent: none when fresh, the full delay when full', () => {
    expect(waitAfterPage('receipts', new SlidingWindow(15, 60_000), 0, tuning)).toBe(0);
    const third = new SlidingWindow(15, 60_000, [0, 1, 2, 3, 4]);
    expect(waitAfterPage('receipts', third, 10, tuning)).toBe(Math.round(4000 / 3));
  });

  it('never spends the reserve on receipts: waits until the window has more than the reserve free', () => {
    // 13 of 15 used: the next receipt-only poll would leave only the 2 kept for a message.
    const window = new SlidingWindow(
      15,
      60_000,
      Array.from({ length: 13 }, (_, i) => i * 1000),
    );
    // The oldest ages out at 60 000; at 20 000 that is 40 000 ms away.
    expect(waitAfterPage('receipts', window, 20_000, tuning)).toBe(40_000);
    // A message still polls at once: the reserve is for it.
    expect(waitAfterPage('messages', window, 20_000, tuning)).toBe(0);
  });

  it('a receipt burst delays the next poll by at most the settle delay while the reserve is untouched', () => {
    const window = new SlidingWindow(15, 60_000);
    let now = 0;
    // Receipts keep coming: each receipt-only page waits, the budget is never drained below the reserve.
    for (let i = 0; i < 40; i++) {
      window.record(now);
      const wait = waitAfterPage('receipts', window, now, tuning);
      if (window.usedShare(now) * 15 < 13) expect(wait).toBeLessThanOrEqual(tuning.receiptSettleMs);
      now += Math.max(wait, 1);
    }
    expect(window.snapshot().filter((t) => t > now - 60_000).length).toBeLessThanOrEqual(13);
  });

  it('skips a settle shorter than the timer resolution', () => {
    const withFloor = { ...tuning, minSettleMs: 1000 };
    // A fifth of the budget spent: 800 ms would be asked, under the floor, so none.
    const fifth = new SlidingWindow(15, 60_000, [0, 1, 2]);
    expect(waitAfterPage('receipts', fifth, 10, withFloor)).toBe(0);
    const twoThirds = new SlidingWindow(
      15,
      60_000,
      Array.from({ length: 10 }, (_, i) => i),
    );
    expect(waitAfterPage('receipts', twoThirds, 10, withFloor)).toBe(Math.round((4000 * 10) / 15));
  });
});
