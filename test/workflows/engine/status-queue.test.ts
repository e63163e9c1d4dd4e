import { StatusQueue } from '../../../workflows/engine/status-queue';

const bounds = { maxPending: 3, maxTyping: 2, giveUpMs: 10_000 };

describe('status queue', () => {
  it('keeps a failed mark-read at the head and retries it after the wait', () => {
    const queue = new StatusQueue(bounds);
    queue.addMarkRead('m1');
    queue.addMarkRead('m2');
    queue.markReadFailed(1000, { waitMs: 5000 });
    expect(queue.headMarkRead()).toEqual({
      messageId: 'm1',
      failures: 1,
      failingSince: 1000,
      notBefore: 6000,
    });
    queue.markReadDone();
    expect(queue.headMarkRead()?.messageId).toBe('m2');
    expect(queue.dropped).toBe(0);
  });

  it('gives a mark-read up when refused for good or failing for giveUpMs', () => {
    const queue = new StatusQueue(bounds);
    queue.addMarkRead('refused');
    queue.addMarkRead('flaky');
    queue.markReadFailed(0, 'final');
    expect(queue.headMarkRead()?.messageId).toBe('flaky');
    queue.markReadFailed(0, { waitMs: 1 });
    queue.markReadFailed(9_999, { waitMs: 1 });
    expect(queue.headMarkRead()?.messageId).toBe('flaky');
    queue.markReadFailed(10_000, { waitMs: 1 });
    expect(queue.headMarkRead()).toBeUndefined();
    expect(queue.dropped).toBe(2);
  });

  it('bounds pending mark-reads under a flood, dropping the oldest and counting them', () => {
    const queue = new StatusQueue(bounds);
    for (let i = 0; i < 5; i++) queue.addMarkRead(`m${i}`);
    expect(queue.pendingMarkRead).toBe(3);
    expect(queue.headMarkRead()?.messageId).toBe('m2');
    expect(queue.dropped).toBe(2);
  });

  it('keeps the newest distinct typing indicators only', () => {
    const queue = new StatusQueue(bounds);
    for (const id of ['a', 'b', 'b', 'c']) queue.addTyping(id);
    expect([queue.takeTyping(), queue.takeTyping(), queue.takeTyping()]).toEqual(['b', 'c', undefined]);
  });

  it('carries pending mark-reads with their retry state, a bare id for one that has not failed', () => {
    const queue = new StatusQueue(bounds, {
      markRead: ['old1', { messageId: 'old2', failures: 2, failingSince: 5 }],
    });
    expect(queue.snapshot().markRead).toEqual(['old1', { messageId: 'old2', failures: 2, failingSince: 5 }]);
  });
});
