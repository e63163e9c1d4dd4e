import { SlidingWindow } from '../../../core/sliding-window';
import { StatusQueue, unknownRetryWaitMs, type RideReport } from '../../../workflows/engine/statuses';

const bounds = { maxPending: 3, maxTyping: 2, giveUpMs: 10_000, graceMs: 3000, unknownRetryBaseMs: 500 };
const WINDOW_MS = 60_000;

function queueWith(limit = 12, carried?: ConstructorParameters<typeof StatusQueue>[2]) {
  const window = new SlidingWindow(limit, WINDOW_MS);
  return { queue: new StatusQueue(bounds, window, carried), window };
}

const report = (r: Partial<RideReport>): RideReport => ({
  done: [],
  refused: [],
  failed: [],
  unknown: [],
  times: [],
  ...r,
});

describe('status queue: mark-reads', () => {
  it('rides every due mark-read with the next send, taking their slots in the window', () => {
    const { queue, window } = queueWith();
    queue.addMarkRead('m1', 0);
    queue.addMarkRead('m2', 10);
    expect(queue.forSend('send#1', 100)).toEqual(['m1', 'm2']);
    // Still ours while the send carries them (carried at continue-as-new, counted as pending).
    expect(queue.pendingMarkRead).toBe(2);
    expect(queue.snapshot().markRead).toEqual(['m1', 'm2']);
    expect(window.snapshot()).toEqual([100, 100]);
    queue.rode('send#1', 200, report({ done: ['m1', 'm2'], times: [150, 160] }));
    expect(queue.pendingMarkRead).toBe(0);
    // The slots moved to when each request was answered.
    expect(window.snapshot()).toEqual([150, 160]);
  });

  it('never makes a reply wait: a send takes only as many as the window has room for now', () => {
    const { queue, window } = queueWith(2);
    window.record(0);
    for (const id of ['m1', 'm2', 'm3']) queue.addMarkRead(id, 0);
    expect(queue.forSend('send#1', 10)).toEqual(['m1']);
    expect(queue.forSend('send#2', 20)).toEqual([]);
    expect(queue.pendingMarkRead).toBe(3);
  });

  it('a mark-read no send took within the grace goes by a request of its own, paced by the window', () => {
    const { queue, window } = queueWith(1);
    expect(queue.ownDueAt(0)).toBeUndefined();
    queue.addMarkRead('m1', 1000);
    queue.addMarkRead('m2', 2000);
    expect(queue.ownDueAt(1000)).toBe(4000);
    expect(queue.forOwn('read#1', 3999)).toEqual([]);
    expect(queue.forOwn('read#1', 4000)).toEqual(['m1']);
    queue.rode('read#1', 4100, report({ done: ['m1'], times: [4050] }));
    // m2 is past its grace at 5000, but the window (one a minute) has room again at 64 050.
    expect(queue.ownDueAt(5000)).toBe(4050 + WINDOW_MS);
    expect(window.snapshot()).toEqual([4050]);
  });

  it('a send taking the mark-read first leaves nothing for a request of its own', () => {
    const { queue } = queueWith();
    queue.addMarkRead('m1', 1000);
    expect(queue.ownDueAt(1000)).toBe(4000);
    queue.forSend('send#1', 1050);
    expect(queue.ownDueAt(1050)).toBeUndefined();
  });

  it('a vehicle that told nothing: its mark-reads go again at once, counted as made until then', () => {
    const { queue, window } = queueWith();
    queue.addMarkRead('m1', 1000);
    queue.addMarkRead('m2', 1000);
    queue.forSend('send#1', 1050);
    queue.rode('send#1', 9000, undefined);
    // No grace, no backoff: due for a request of their own now.
    expect(queue.ownDueAt(9000)).toBe(9000);
    expect(window.snapshot()).toEqual([9000, 9000]);
    expect(queue.forOwn('read#1', 9000)).toEqual(['m1', 'm2']);
    // The same when the request of their own dies too.
    queue.rode('read#1', 9500, undefined);
    expect(queue.ownDueAt(9500)).toBe(9500);
  });

  it('after a failure that may pass, no mark-read goes before the wait, not even one queued since', () => {
    const { queue } = queueWith();
    queue.addMarkRead('m1', 0);
    queue.forSend('send#1', 1000);
    queue.rode('send#1', 1000, report({ failed: ['m1'], times: [1000], retry: { waitMs: 5000 } }));
    queue.addMarkRead('m2', 1500);
    expect(queue.forSend('send#2', 1500)).toEqual([]);
    expect(queue.ownDueAt(1500)).toBe(6000);
    // m2's own grace was over at 4500: it goes at 6000 too, with m1.
    expect(queue.forOwn('read#1', 6000)).toEqual(['m1', 'm2']);
  });

  it('sends a mark-read of unknown outcome again at once, with the next send, holding back no other', () => {
    const { queue } = queueWith();
    queue.addMarkRead('m1', 0);
    queue.forSend('send#1', 1000);
    // The request was dropped: it may or may not be marked.
    queue.rode('send#1', 1000, report({ unknown: ['m1'], times: [1000] }));
    queue.addMarkRead('m2', 1100);
    // The next reply takes both at once: neither a backoff nor a pause, as a 429 or 503 would bring.
    expect(queue.forSend('send#2', 1100)).toEqual(['m1', 'm2']);
    queue.rode('send#2', 1200, report({ unknown: ['m1'], done: ['m2'], times: [1150, 1160] }));
    // Unknown twice in a row: a request of its own waits unknownRetryBaseMs ...
    expect(queue.ownDueAt(1300)).toBe(1700);
    expect(queue.forOwn('read#0', 1300)).toEqual([]);
    // ... but a reply still takes it at once (read, then answer).
    expect(queue.forSend('send#3', 1300)).toEqual(['m1']);
    queue.rode('send#3', 1300, report({ unknown: ['m1'], times: [1300] }));
    expect(queue.ownDueAt(1300)).toBe(2300);
    expect(queue.forOwn('read#1', 2300)).toEqual(['m1']);
    queue.rode('read#1', 2300, report({ unknown: ['m1'], times: [2300] }));
    // ... doubled each time, never more than the grace.
    expect(queue.ownDueAt(2300)).toBe(4300);
    queue.forOwn('read#2', 4300);
    queue.rode('read#2', 4300, report({ unknown: ['m1'], times: [4300] }));
    expect(queue.ownDueAt(4300)).toBe(7300);
    // Failing that way for giveUpMs (since its first failure, at 1000), it is given up.
    queue.forOwn('read#4', 7300);
    queue.rode('read#4', 11_000, report({ unknown: ['m1'], times: [11_000] }));
    expect(queue.pendingMarkRead).toBe(0);
    expect(queue.dropped).toBe(1);
  });

  it('waits none after a first unknown outcome, then the base doubled up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 100].map((n) => unknownRetryWaitMs(n, 500, 3000))).toEqual([
      0, 500, 1000, 2000, 3000, 3000, 3000,
    ]);
  });

  it('gives a mark-read up when refused for good or failing for giveUpMs, and says which', () => {
    const { queue } = queueWith();
    queue.addMarkRead('refused', 0);
    queue.addMarkRead('flaky', 0);
    queue.forSend('s1', 0);
    queue.rode('s1', 0, report({ refused: ['refused'], failed: ['flaky'], retry: { waitMs: 1 } }));
    queue.forOwn('r1', 9_999);
    queue.rode('r1', 9_999, report({ failed: ['flaky'], retry: { waitMs: 1 } }));
    expect(queue.pendingMarkRead).toBe(1);
    queue.forOwn('r2', 10_000);
    queue.rode('r2', 10_000, report({ failed: ['flaky'], retry: { waitMs: 1 } }));
    expect(queue.pendingMarkRead).toBe(0);
    expect(queue.dropped).toBe(2);
  });

  it('takes back what a vehicle did not try, as it was', () => {
    const { queue } = queueWith();
    queue.addMarkRead('m1', 0);
    queue.addMarkRead('m2', 0);
    queue.forSend('s1', 100);
    queue.rode('s1', 200, report({ done: ['m1'], times: [150] }));
    expect(queue.snapshot().markRead).toEqual(['m2']);
    expect(queue.ownDueAt(200)).toBe(3000);
  });

  it('a typing indicator shown for a message marks it read: its own mark-read is not needed', () => {
    const { queue } = queueWith();
    queue.addMarkRead('m1', 0);
    queue.addMarkRead('m2', 0);
    queue.typed('m1');
    expect(queue.snapshot().markRead).toEqual(['m2']);
  });

  it('bounds pending mark-reads under a flood, dropping the oldest and counting them', () => {
    const { queue } = queueWith();
    for (let i = 0; i < 5; i++) queue.addMarkRead(`m${i}`, 0);
    expect(queue.pendingMarkRead).toBe(3);
    expect(queue.forSend('s1', 0)).toEqual(['m2', 'm3', 'm4']);
    expect(queue.dropped).toBe(2);
  });

  it('carries pending mark-reads with their retry state, a bare id for one that has not failed; due at once in the next run', () => {
    const carried = { markRead: ['old1', { messageId: 'old2', failures: 2, failingSince: 5 }] };
    const { queue } = queueWith(12, carried);
    expect(queue.snapshot().markRead).toEqual(['old1', { messageId: 'old2', failures: 2, failingSince: 5 }]);
    expect(queue.ownDueAt(100)).toBe(100);
    // Riding at the hand-over: carried all the same.
    queue.forSend('s1', 100);
    expect(queue.snapshot().markRead).toEqual(['old1', { messageId: 'old2', failures: 2, failingSince: 5 }]);
  });
});

describe('status queue: typing', () => {
  it('keeps the newest distinct typing indicators only', () => {
    const { queue } = queueWith();
    for (const id of ['a', 'b', 'b', 'c']) queue.addTyping(id);
    expect(queue.hasTyping).toBe(true);
    expect([queue.takeTyping(), queue.takeTyping(), queue.takeTyping()]).toEqual(['b', 'c', undefined]);
  });
});
