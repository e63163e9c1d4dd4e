import { RebuiltRunQuery } from '../../../workflows/engine/activation-guard';

describe("the activation guard's query rule", () => {
  const replay = { replaying: true, queries: false, legacyQuery: false };
  const live = { replaying: false, queries: false, legacyQuery: false };
  const legacy = { replaying: false, queries: true, legacyQuery: true };
  const attached = { replaying: false, queries: true, legacyQuery: false };

  it('refuses a legacy query right after the first live activation of a rebuilt run', () => {
    const rule = new RebuiltRunQuery();
    rule.check(replay);
    rule.check(replay);
    expect(rule.check(live)).toBeUndefined();
    expect(rule.check(legacy)).toMatch(/^query on a rebuilt run: .*ask again/);
  });

  it('answers a legacy query on a run rebuilt without live events, and any after it', () => {
    const rule = new RebuiltRunQuery();
    rule.check(replay);
    expect(rule.check(legacy)).toBeUndefined();
    // The run is cached now: its next task is live, and a query after it is answered.
    expect(rule.check(live)).toBeUndefined();
    expect(rule.check(legacy)).toBeUndefined();
  });

  it('answers once a second live activation or a task’s own query came after the rebuild', () => {
    const twice = new RebuiltRunQuery();
    [replay, live, live].forEach((kind) => twice.check(kind));
    expect(twice.check(legacy)).toBeUndefined();
    const withTask = new RebuiltRunQuery();
    [replay, live, attached].forEach((kind) => withTask.check(kind));
    expect(withTask.check(legacy)).toBeUndefined();
  });

  it('answers on a run that was never rebuilt (started on this worker)', () => {
    const rule = new RebuiltRunQuery();
    rule.check(live);
    expect(rule.check(legacy)).toBeUndefined();
  });
});
