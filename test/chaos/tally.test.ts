import {
  clean,
  retriesTooSoon,
  served429ByEndpoint,
  tally,
  type ChaosFacts,
  type Expectation,
} from '../../chaos/tally';

const e = (over: Partial<Expectation>): Expectation => ({
  agent: 'a',
  text: 'x',
  match: 'exact',
  kind: 'echo',
  outcome: 'seen',
  ...over,
});

const facts = (over: Partial<ChaosFacts>): ChaosFacts => ({
  expectations: [],
  botTexts: {},
  repeatedQuestions: 0,
  approvalsResolved: {},
  log: [],
  overlappingSends: 0,
  status429: 0,
  injected429: 0,
  replacedPolls: 0,
  injectedReplaced: 0,
  ambiguousInjected: 0,
  unread: 0,
  ...over,
});

describe('chaos verdict', () => {
  it('is clean when every expected text came once', () => {
    const v = tally(
      facts({
        expectations: [
          e({ text: 'c1' }),
          e({ text: '⏰ c2', kind: 'reminder' }),
          e({ text: ': c3', match: 'suffix' }),
        ],
        botTexts: { a: ['c1', '⏰ c2', 'OK, I will remind you at 10:00: c3'] },
        approvalsResolved: { c4: 1 },
      }),
    );
    expect(clean(v)).toBe(true);
  });

  it('counts a lost reply, a doubled one, a stuck step and a surfaced ambiguous send apart', () => {
    const v = tally(
      facts({
        expectations: [
          e({ text: 'lost' }),
          e({ text: 'twice' }),
          e({ text: 'stuck', outcome: 'stuck' }),
          e({ text: 'gone', outcome: 'surfaced', surfacedAs: 'AmbiguousSend' }),
          e({ text: 'refused', outcome: 'surfaced', surfacedAs: 'SendRejected' }),
        ],
        botTexts: { a: ['twice', 'twice', 'stuck'] },
      }),
    );
    // A reply the handler was told about (either failure) is not lost.
    expect(v).toMatchObject({ lost: 1, duplicated: 1, stuck: 1, ambiguousSurfaced: 1, rejectedSurfaced: 1 });
    expect(clean(v)).toBe(false);
  });

  it('counts a photo by its handler, not by a reply: seen is clean, stuck is stuck', () => {
    const seen = tally(facts({ expectations: [e({ text: 'wamid.1', kind: 'media' })] }));
    expect(clean(seen)).toBe(true);
    const stuck = tally(facts({ expectations: [e({ text: 'wamid.2', kind: 'media', outcome: 'stuck' })] }));
    expect(stuck).toMatchObject({ lost: 0, stuck: 1 });
  });

  it('finds reminders fired 0 or 2 times and approvals resolved twice or never', () => {
    const v = tally(
      facts({
        expectations: [e({ text: '⏰ r1', kind: 'reminder' }), e({ text: '⏰ r2', kind: 'reminder' })],
        botTexts: { a: ['⏰ r2', '⏰ r2'] },
        approvalsResolved: { p1: 2, p2: 0 },
      }),
    );
    expect(v).toMatchObject({
      remindersNotFired: 1,
      remindersFiredTwice: 1,
      approvalsResolvedTwice: 1,
      approvalsUnresolved: 1,
    });
  });

  it('is not clean while a human message was never marked read', () => {
    const v = tally(facts({ unread: 2 }));
    expect(v.unread).toBe(2);
    expect(clean(v)).toBe(false);
  });

  it('tells injected 429s and 409s from violations', () => {
    const v = tally(
      facts({ status429: 3, injected429: 2, replacedPolls: 1, injectedReplaced: 1, overlappingSends: 1 }),
    );
    expect(v.violations).toEqual({
      overlappingSends: 1,
      concurrentPolls: 0,
      served429: 1,
      retriesTooSoon: 0,
    });
  });

  it('flags a request sooner than allowed after a 429 on the same agent and endpoint', () => {
    const line = (at: number, status: number, endpoint = 'messages', agent = 'a') => ({
      agent,
      at,
      endpoint,
      status,
    });
    expect(retriesTooSoon([line(0, 429), line(100, 200), line(1000, 429), line(2000, 200)])).toBe(1);
    // Another endpoint or agent may go on at once.
    expect(retriesTooSoon([line(0, 429), line(10, 200, 'updates'), line(20, 200, 'messages', 'b')])).toBe(0);
  });

  it('names the endpoints whose 429s outnumber the injected ones, and by how many', () => {
    const line = (endpoint: string, status: number) => ({ agent: 'a', at: 0, endpoint, status });
    const log = [line('updates', 429), line('updates', 429), line('statuses', 429), line('messages', 200)];
    expect(served429ByEndpoint(log, { updates: 1, statuses: 1 })).toEqual({ updates: 1 });
    expect(served429ByEndpoint(log, { updates: 2, statuses: 1 })).toEqual({});
    expect(served429ByEndpoint(log, {})).toEqual({ updates: 2, statuses: 1 });
  });
});
