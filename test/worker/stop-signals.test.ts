import { SAME_SIGNAL_MS, signalMeaning } from '../../worker/stop-signals';

describe('what a SIGINT or SIGTERM to the worker means', () => {
  it('the first drains; one arriving with it (npm’s forward of a Ctrl-C) is the same; a later one forces', () => {
    expect(signalMeaning(1_000, undefined)).toBe('drain');
    expect(signalMeaning(1_000, 1_000)).toBe('same');
    expect(signalMeaning(1_000 + SAME_SIGNAL_MS - 1, 1_000)).toBe('same');
    expect(signalMeaning(1_000 + SAME_SIGNAL_MS, 1_000)).toBe('force');
    expect(signalMeaning(60_000, 1_000)).toBe('force');
  });
});
