import {
  continueAsNewAfterEvents,
  DEFAULT_TUNING,
  EARLIER_CONTINUE_AS_NEW_AFTER_EVENTS,
  resolveTuning,
} from '../../../workflows/engine/tuning';

describe("the agent workflow's tuning", () => {
  it('continues as new after 1,000 events in runs of the current code, 4,000 in earlier ones', () => {
    expect(DEFAULT_TUNING.continueAsNewAfterEvents).toBe(1000);
    expect(continueAsNewAfterEvents(undefined, true)).toBe(1000);
    expect(continueAsNewAfterEvents({}, false)).toBe(EARLIER_CONTINUE_AS_NEW_AFTER_EVENTS);
    expect(EARLIER_CONTINUE_AS_NEW_AFTER_EVENTS).toBe(4000);
  });

  it("keeps a threshold the agent's tuning sets, in either", () => {
    expect(continueAsNewAfterEvents({ continueAsNewAfterEvents: 150 }, true)).toBe(150);
    expect(continueAsNewAfterEvents({ continueAsNewAfterEvents: 150 }, false)).toBe(150);
  });

  it('fills what the tuning leaves out with the defaults', () => {
    expect(resolveTuning({ pollLimit: 10 })).toEqual({ ...DEFAULT_TUNING, pollLimit: 10 });
  });
});
