import { OpenPoll } from '../../../workflows/engine/poll-rules';

describe('open poll', () => {
  it('cancels the open poll, and nothing once it has closed', () => {
    const poll = new OpenPoll();
    const cancel = jest.fn();
    poll.cancel();
    poll.opened(cancel, false);
    expect(poll.isOpen).toBe(true);
    poll.cancel();
    expect(cancel).toHaveBeenCalledTimes(1);
    poll.closed();
    expect(poll.isOpen).toBe(false);
    poll.cancel();
    expect(cancel).toHaveBeenCalledTimes(1);
  });

  it('ends a quiet poll for a reconciliation, never a long one', () => {
    const poll = new OpenPoll();
    const long = jest.fn();
    poll.opened(long, false);
    poll.endQuiet();
    expect(long).not.toHaveBeenCalled();
    poll.closed();
    const quiet = jest.fn();
    poll.opened(quiet, true);
    poll.endQuiet();
    expect(quiet).toHaveBeenCalledTimes(1);
  });
});
