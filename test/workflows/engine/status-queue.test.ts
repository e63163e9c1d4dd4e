import { StatusQueue } from '../../../workflows/engine/status-queue';

const bounds = { maxPending: 3, maxTyping: 2, giveUpMs: 10_000 };

describe('status queue', () => {
  it('hands due mark-reads to the next poll, and takes back what it did not get to', () => {
    const queue = new StatusQueue(bounds);
    for (const id of ['m1', 'm2', 'm3']) queue.addMarkRead(id);
    expect(queue.ride(0, 2)).toEqual(['m1', 'm2']);
    // Still ours while the poll rides with them (carried at continue-as-new, counted as pending).
    expect(queue.pendingMarkRead).toBe(3);
    expect(queue.snapshot().markRead).toEqual(['m1', 'm2', 'm3']);
    queue.rode(1000, { done: ['m1'], refused: [] });
    expect(queue.pendingMarkRead).toBe(2);
    expect(queue.ride(1000, 5)).toEqual(['m2', 'm3']);
    queue.rode(2000, { done: ['m2', 'm3'], refused: [] });
    expect(queue.pendingMarkRead).toBe(0);
    expect(queue.dropped).toBe(0);
  });

  it('after a failure that may pass, retries them after the wait; a failed poll hands all back as they were', () => {
    const queue = new StatusQueue(bounds);
    queue.addMarkRead('m1');
    queue.addMarkRead('m2');
    queue.ride(1000, 5);
    queue.rode(1000, { done: [], refused: [], retry: { waitMs: 5000 } });
    expect(queue.snapshot().markRead).toEqual([
      { messageId: 'm1', failures: 1, failingSince: 1000, notBefore: 6000 },
      { messageId: 'm2', failures: 1, failingSince: 1000, notBefore: 6000 },
    ]);
    expect(queue.dueNow(5999)).toBe(false);
    expect(queue.ride(5999, 5)).toEqual([]);
    expect(queue.ride(6000, 5)).toEqual(['m1', 'm2']);
    queue.rode(6000, undefined);
    expect(queue.ride(6000, 5)).toEqual(['m1', 'm2']);
  });

  it('says when the first mark-read left for a later poll is due (a quiet poll returns by then)', () => {
    const queue = new StatusQueue(bounds);
    expect(queue.waitingDueAt()).toBeUndefined();
    queue.addMarkRead('m1');
    queue.addMarkRead('m2');
    // Left behind by a poll that could take one only: due at once.
    queue.ride(1000, 1);
    expect(queue.waitingDueAt()).toBe(0);
    // m1 back after a failure that may pass: both are due after the wait (the endpoint waits).
    queue.rode(1000, { done: [], refused: [], retry: { waitMs: 5000 } });
    expect(queue.ride(1000, 5)).toEqual([]);
    expect(queue.waitingDueAt()).toBe(6000);
    // Handed to a poll: none waits.
    expect(queue.ride(6000, 5)).toEqual(['m1', 'm2']);
    expect(queue.waitingDueAt()).toBeUndefined();
  });

  it('after a failure that may pass, no mark-read goes before the wait, not even one queued since', () => {
    const queue = new StatusQueue(bounds);
    queue.addMarkRead('m1');
    queue.ride(1000, 5);
    queue.rode(1000, { done: [], refused: [], retry: { waitMs: 1000 } });
    queue.addMarkRead('m2');
    expect(queue.dueNow(1500)).toBe(false);
    expect(queue.ride(1500, 5)).toEqual([]);
    expect(queue.waitingDueAt()).toBe(2000);
    expect(queue.ride(2000, 5)).toEqual(['m1', 'm2']);
  });

  it('gives a mark-read up when refused for good or failing for giveUpMs', () => {
    const queue = new StatusQueue(bounds);
    queue.addMarkRead('refused');
    queue.addMarkRead('flaky');
    queue.ride(0, 5);
    queue.rode(0, { done: [], refused: ['refused'], retry: { waitMs: 1 } });
    queue.ride(9_999, 5);
    queue.rode(9_999, { done: [], refused: [], retry: { waitMs: 1 } });
    expect(queue.pendingMarkRead).toBe(1);
    queue.ride(10_000, 5);
    queue.rode(10_000, { done: [], refused: [], retry: { waitMs: 1 } });
    expect(queue.pendingMarkRead).toBe(0);
    expect(queue.dropped).toBe(2);
  });

  it('bounds pending mark-reads under a flood, dropping the oldest and counting them', () => {
    const queue = new StatusQueue(bounds);
    for (let i = 0; i < 5; i++) queue.addMarkRead(`m${i}`);
    expect(queue.pendingMarkRead).toBe(3);
    expect(queue.ride(0, 1)).toEqual(['m2']);
    expect(queue.dropped).toBe(2);
  });

  it('keeps the newest distinct typing indicators only', () => {
    const queue = new StatusQueue(bounds);
    for (const id of ['a', 'b', 'b', 'c']) queue.addTyping(id);
    expect(queue.hasTyping).toBe(true);
    expect([queue.takeTyping(), queue.takeTyping(), queue.takeTyping()]).toEqual(['b', 'c', undefined]);
  });

  it('carries pending mark-reads with their retry state, a bare id for one that has not failed', () => {
    const queue = new StatusQueue(bounds, {
      markRead: ['old1', { messageId: 'old2', failures: 2, failingSince: 5 }],
    });
    expect(queue.snapshot().markRead).toEqual(['old1', { messageId: 'old2', failures: 2, failingSince: 5 }]);
  });
});
