/** Double texting: what a message held while work runs does to it (pure). */
import { outcomeOf } from '../../../workflows/models/listening';

const state = (settled: boolean, cancelled: boolean, interrupting: boolean) => ({
  settled,
  cancelled,
  interrupting,
});

describe('the outcome of waiting for work', () => {
  it('restarts a model call for a new message, even one that came with its answer', () => {
    expect(outcomeOf('restart', state(true, false, true))).toBe('interrupted');
    expect(outcomeOf('restart', state(false, false, true))).toBe('interrupted');
    expect(outcomeOf('restart', state(true, false, false))).toBe('done');
  });

  it('keeps an approval decided in the same instant; gives up one still pending', () => {
    expect(outcomeOf('decide', state(true, false, true))).toBe('done');
    expect(outcomeOf('decide', state(false, false, true))).toBe('interrupted');
    expect(outcomeOf('decide', state(false, true, false))).toBe('cancelled');
  });

  it('lets a running tool finish: done once it has', () => {
    expect(outcomeOf('finish', state(true, true, true))).toBe('done');
  });
});
