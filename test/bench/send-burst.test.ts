/**
 * A send-budget burst's figures (bench/send-burst.ts, burstFigures): lateness against the
 * optimum, the sustained rate, requests and 429s from the agent's log, and whether replies left
 * before the reminders due among them.
 */
import { burstFigures, type BurstOptions } from '../../bench/send-burst';

const o: BurstOptions = {
  sends: 6,
  windowMs: 1000,
  limit: 2,
  statusEveryMs: 200,
  secondWaveAfterMs: 500,
  tag: 'busy',
  withStatuses: true,
  reminders: 2,
};

describe('bench/send-burst: burstFigures', () => {
  it('an optimal burst: no lateness, sustained at the limit, replies before the reminders', () => {
    const f = burstFigures(o, {
      wroteAt: 0,
      requestedAt: 100,
      // Two at once, then two as each ages out of the 1 s window.
      replies: [100, 100, 1100, 1100, 2100, 2100],
      reminders: [3100, 3100],
      log: [
        { endpoint: 'messages', status: 200 },
        { endpoint: 'statuses', status: 200 },
        { endpoint: 'statuses', status: 200 },
        { endpoint: 'typing', status: 200 },
        { endpoint: 'updates', status: 429 },
      ],
    });
    expect(f.pickupMs).toBe(100);
    expect(f.offsetsMs).toEqual([0, 0, 1000, 1000, 2000, 2000]);
    expect(f.latenessMs).toEqual({ p50: 0, max: 0 });
    expect(f.firstWindowOutMs).toBe(0);
    expect(f.sustainedRatio).toBe(1);
    expect(f.statusRequests).toEqual({ markRead: 2, typing: 1 });
    expect(f.status429).toEqual({ messages: 0, statuses: 0, typing: 0, updates: 1 });
    expect(f.reminders).toEqual({ due: 2, offsetsMs: [3000, 3000], repliesAfterFirst: 0 });
  });

  it('reminders that jumped the queue: the replies after them are counted, and late', () => {
    const f = burstFigures(o, {
      wroteAt: 0,
      requestedAt: 0,
      replies: [0, 0, 1200, 2000, 2200, 3000],
      reminders: [1000],
      log: [],
    });
    expect(f.reminders?.repliesAfterFirst).toBe(4);
    expect(f.latenessMs).toEqual({ p50: 200, max: 1000 });
    // Gaps between send i and i − 2: 1200, 2000, 1000, 1000 → mean 1300 ms for a 1000 ms window.
    expect(f.sustainedRatio).toBe(0.769);
  });

  it('a baseline burst has no reminders figure', () => {
    const f = burstFigures(
      { ...o, reminders: undefined, withStatuses: false },
      {
        wroteAt: 0,
        requestedAt: 0,
        replies: [0, 0],
        reminders: [],
        log: [],
      },
    );
    expect(f.reminders).toBeUndefined();
    expect(f.sustainedRatio).toBeNaN();
    expect(f.accepted).toBe(2);
  });
});
