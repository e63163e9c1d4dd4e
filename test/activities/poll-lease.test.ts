import { PollLease, PollLeaseLostError, type LeaseAnswer } from '../../activities/poll-lease';
import { POLL_LEASE, lostPollWaitMs } from '../../protocol/agent';

/** A lease over scripted answers, each taking `tookMs` of a clock that only moves when told. */
function leaseWith(answers: { answer: LeaseAnswer; tookMs: number }[], heartbeatTimeoutMs = 5000) {
  let now = 1_000_000;
  const asked: number[] = [];
  const slept: number[] = [];
  const lease = new PollLease(
    async (deadlineMs) => {
      expect(deadlineMs).toBe(POLL_LEASE.ackMaxMs);
      const next = answers.shift();
      if (!next) throw new Error('asked more often than scripted');
      asked.push(now);
      now += next.tookMs;
      return next.answer;
    },
    heartbeatTimeoutMs,
    {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    },
  );
  return { lease, asked, slept, elapsed: () => now - 1_000_000 };
}

const signal = new AbortController().signal;

describe('the poll lease of an activity attempt', () => {
  it('lets a poll start at once when Temporal acknowledges in time', async () => {
    const { lease, asked, slept } = leaseWith([{ answer: 'held', tookMs: 40 }]);
    await lease.confirm(signal);
    expect([asked.length, slept]).toEqual([1, []]);
  });

  it('asks again when the acknowledgement was too slow or did not come, and then lets the poll start', async () => {
    const { lease, asked, slept } = leaseWith([
      { answer: 'held', tookMs: POLL_LEASE.ackMaxMs + 1 },
      { answer: 'unknown', tookMs: POLL_LEASE.ackMaxMs },
      { answer: 'held', tookMs: 10 },
    ]);
    await lease.confirm(signal);
    expect(asked).toHaveLength(3);
    expect(slept).toEqual([POLL_LEASE.askAgainMs, POLL_LEASE.askAgainMs]);
  });

  it('stops at once when Temporal no longer knows the attempt', async () => {
    const { lease } = leaseWith([{ answer: 'lost', tookMs: 5 }]);
    await expect(lease.confirm(signal)).rejects.toThrow(PollLeaseLostError);
  });

  it('stops once no acknowledgement came for the heartbeat timeout since the last one', async () => {
    const cut = Array.from({ length: 10 }, () => ({
      answer: 'unknown' as const,
      tookMs: POLL_LEASE.ackMaxMs,
    }));
    const { lease, elapsed } = leaseWith([{ answer: 'held', tookMs: 10 }, ...cut], 4000);
    await lease.confirm(signal);
    const heldFrom = elapsed() - 10;
    await expect(lease.confirm(signal)).rejects.toThrow(
      /no heartbeat acknowledged by Temporal within 4000 ms/,
    );
    // Not before the heartbeat timeout, and not long after it.
    expect(elapsed() - heldFrom).toBeGreaterThanOrEqual(4000);
    expect(elapsed() - heldFrom).toBeLessThan(4000 + POLL_LEASE.ackMaxMs + POLL_LEASE.askAgainMs);
  });
});

describe("the wait for a lost poll's end", () => {
  it("covers a poll started within the acknowledgement's bound after the last recorded heartbeat", () => {
    // The spec's 25 s polls, a 5 s heartbeat timeout: 25 + 1 + 1 - 5 s.
    expect(lostPollWaitMs(25, 5000)).toBe(22_000);
    // Polls shorter than the heartbeat timeout: the lost one has ended when Temporal gives it up.
    expect(lostPollWaitMs(2, 5000)).toBe(0);
    expect(lostPollWaitMs(0, 5000)).toBe(0);
  });
});
