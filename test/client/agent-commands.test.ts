import { ranOutOfTime } from '../../client/cli/agent-commands';

describe('ranOutOfTime (how `amsflow state` tells a query that ran out of time)', () => {
  const deadline = 1_000;

  it('DEADLINE_EXCEEDED is running out of time, before or after the deadline', () => {
    expect(ranOutOfTime(4, deadline, 999)).toBe(true);
    expect(ranOutOfTime(4, deadline, 1_000)).toBe(true);
  });

  it('CANCELLED at or after the deadline is the server ending the call at it', () => {
    expect(ranOutOfTime(1, deadline, 1_000)).toBe(true);
    expect(ranOutOfTime(1, deadline, 1_500)).toBe(true);
  });

  it('CANCELLED before the deadline, and any other code, is another failure', () => {
    expect(ranOutOfTime(1, deadline, 999)).toBe(false);
    expect(ranOutOfTime(14, deadline, 2_000)).toBe(false);
    expect(ranOutOfTime(undefined, deadline, 2_000)).toBe(false);
  });
});
