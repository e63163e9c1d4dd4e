import { PollDeadline, pollBudgetMs } from '../../../workflows/engine/poll-rules';

const tuning = { pollTimeoutSeconds: 25, quietPollMs: 300_000, idlePollMs: 10_000, windowMs: 60_000 };

describe('poll deadline', () => {
  it('allows a poll its activity timeout, and a quiet poll its quiet time on top', () => {
    expect(pollBudgetMs(tuning, false)).toBe(65_000);
    expect(pollBudgetMs(tuning, true)).toBe(365_000);
  });

  it('sets by when the next poll should have ended for each step', () => {
    const d = new PollDeadline(tuning);
    d.expect('long', 1000);
    expect(d.dueBy).toBe(66_000);
    d.expect('quiet', 1000);
    expect(d.dueBy).toBe(366_000);
    // Paced: a whole window, after a retry wait if there is one.
    d.expect('paced', 1000);
    expect(d.dueBy).toBe(126_000);
    d.expect('paced', 1000, 31_000);
    expect(d.dueBy).toBe(156_000);
    d.expect('idle', 1000);
    expect(d.dueBy).toBe(136_000);
  });

  it('has no deadline while the agent is stopped, and remembers when the last poll ended', () => {
    const d = new PollDeadline(tuning);
    d.expect('long', 0);
    d.ended(5000);
    d.stopped();
    expect(d.dueBy).toBeUndefined();
    expect(d.endedAt).toBe(5000);
  });
});
