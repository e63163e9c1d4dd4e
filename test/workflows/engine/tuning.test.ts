import { continueAsNewAfterEvents, DEFAULT_TUNING, resolveTuning } from '../../../workflows/engine/tuning';

describe("the agent workflow's tuning", () => {
  it("continues as new after 1,000 events, or after what the agent's tuning sets", () => {
    expect(DEFAULT_TUNING.continueAsNewAfterEvents).toBe(1000);
    expect(continueAsNewAfterEvents(undefined)).toBe(1000);
    expect(continueAsNewAfterEvents({})).toBe(1000);
    expect(continueAsNewAfterEvents({ continueAsNewAfterEvents: 150 })).toBe(150);
  });

  it('fills what the tuning leaves out with the defaults', () => {
    expect(resolveTuning({ pollLimit: 10 })).toEqual({ ...DEFAULT_TUNING, pollLimit: 10 });
  });
});
