import {
  clean,
  readLateness,
  readTicksLate,
  stalledMs,
  readTicksOf,
  retriesTooSoon,
  served429ByEndpoint,
  tally,
  type ChaosFacts,
  type Expectation,
  type ReadTick,
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
  inbound: [],
  unreadGraceMs: 10_000,
  stalls: [],
  slowed: [],
  readTicks: [],
  endedAt: 100_000,
  readLateP95LimitMs: 5000,
  ...over,
});

/** A reply accepted at `replyAt` quoting a message read at `readAt` (null: unread). */
const tick = (replyAt: number, readAt: number | null, messageId = 'wamid.h'): ReadTick => ({
  agent: 'a',
  messageId,
  replyAt,
  readAt,
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

  it('is not clean while a human message is unread at the end', () => {
    const v = tally(facts({ unread: 2 }));
    expect(v.unread).toBe(2);
    expect(clean(v)).toBe(false);
  });

  it('counts the messages left unread past the grace as a protocol violation, still unread ones until the end', () => {
    const read = (deliveredAt: number, readAt: number | null) => ({ agent: 'a', deliveredAt, readAt });
    const v = tally(
      facts({ inbound: [read(0, 10_001), read(0, 10_000), read(95_000, null)], endedAt: 100_000 }),
    );
    expect(v.violations.unreadPastGrace).toBe(1);
    expect(clean(v)).toBe(false);
    expect(clean(tally(facts({ inbound: [read(0, 10_000)] })))).toBe(true);
    expect(tally(facts({ inbound: [read(0, null)], endedAt: 10_001 })).violations.unreadPastGrace).toBe(1);
  });

  it('does not count the time a fault stopped everything against the grace, and says what it would be', () => {
    // Delivered at 0, read at 18 s: 9 s of a database outage and 2 s of a restart in between (one
    // second of them overlapping) leave 8 s, within the 10-s grace.
    const stalls = [
      { from: 1000, to: 10_000 },
      { from: 9000, to: 11_000 },
      { from: 30_000, to: 40_000 },
    ];
    expect(stalledMs(0, 18_000, stalls)).toBe(10_000);
    expect(stalledMs(35_000, 50_000, stalls)).toBe(5000);
    expect(stalledMs(12_000, 20_000, stalls)).toBe(0);
    const v = tally(facts({ inbound: [{ agent: 'a', deliveredAt: 0, readAt: 18_000 }], stalls }));
    expect(v.violations.unreadPastGrace).toBe(0);
    expect(v.unreadPastGraceWithStalls).toBe(1);
    // Past the grace even with the stall taken off: counted.
    const late = tally(facts({ inbound: [{ agent: 'a', deliveredAt: 0, readAt: 21_000 }], stalls }));
    expect(late.violations.unreadPastGrace).toBe(1);
    // A read tick is late by the time after its reply that no stall covers.
    expect(readLateness(tick(0, 18_000), 50_000, stalls)).toBe(8000);
  });

  it('does not count the time a fault slowed the links against the grace, but against the read ticks', () => {
    // Delivered at 0, read at 14 s: 6 s of a bandwidth limit in between leave 8 s, within the 10-s
    // grace; without it the message is past the grace.
    const slowed = [{ from: 2000, to: 8000 }];
    const inbound = [{ agent: 'a', deliveredAt: 0, readAt: 14_000 }];
    expect(tally(facts({ inbound, slowed })).violations.unreadPastGrace).toBe(0);
    expect(tally(facts({ inbound })).violations.unreadPastGrace).toBe(1);
    // Past the grace even with the slowed time taken off: counted.
    const late = [{ agent: 'a', deliveredAt: 0, readAt: 17_000 }];
    expect(tally(facts({ inbound: late, slowed })).violations.unreadPastGrace).toBe(1);
    // The read ticks count it: a reply at 0 read at 6 s is 6 s late, slowed or not.
    const ticks = tally(facts({ readTicks: [tick(0, 6000)], slowed, readLateP95LimitMs: 5000 }));
    expect(ticks.readTicksLate.p95Ms).toBe(6000);
    expect(clean(ticks)).toBe(false);
  });

  it("does not count the time the cluster did not serve an agent against that agent's messages only", () => {
    // The cluster did not answer for agent a from 2 s to 9 s: a's message read at 16 s is within
    // the grace, b's read at 16 s is not.
    const stalls = [{ from: 2000, to: 9000, agent: 'a' }];
    expect(stalledMs(0, 16_000, stalls, 'a')).toBe(7000);
    expect(stalledMs(0, 16_000, stalls, 'b')).toBe(0);
    const v = tally(
      facts({
        inbound: [
          { agent: 'a', deliveredAt: 0, readAt: 16_000 },
          { agent: 'b', deliveredAt: 0, readAt: 16_000 },
        ],
        stalls,
      }),
    );
    expect(v.violations.unreadPastGrace).toBe(1);
    expect(readLateness({ ...tick(0, 16_000), agent: 'a' }, 50_000, stalls)).toBe(9000);
    expect(readLateness({ ...tick(0, 16_000), agent: 'b' }, 50_000, stalls)).toBe(16_000);
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
      unreadPastGrace: 0,
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

  it('does not count a request that was in flight when the 429 was answered, but counts the next one', () => {
    const line = (receivedAt: number, at: number, status: number) => ({
      agent: 'a',
      endpoint: 'statuses',
      receivedAt,
      at,
      status,
    });
    // Came in at 0, answered 2 ms after the 429 (answered at 10): it was already on its way.
    expect(retriesTooSoon([line(5, 10, 429), line(0, 12, 200)])).toBe(0);
    // The first request that came in after the 429's answer is what the rule judges.
    expect(retriesTooSoon([line(5, 10, 429), line(0, 12, 200), line(50, 60, 200)])).toBe(1);
    expect(retriesTooSoon([line(5, 10, 429), line(0, 12, 200), line(500, 510, 200)])).toBe(0);
  });

  it('names the endpoints whose 429s outnumber the injected ones, and by how many', () => {
    const line = (endpoint: string, status: number) => ({ agent: 'a', at: 0, endpoint, status });
    const log = [line('updates', 429), line('updates', 429), line('statuses', 429), line('messages', 200)];
    expect(served429ByEndpoint(log, { updates: 1, statuses: 1 })).toEqual({ updates: 1 });
    expect(served429ByEndpoint(log, { updates: 2, statuses: 1 })).toEqual({});
    expect(served429ByEndpoint(log, {})).toEqual({ updates: 2, statuses: 1 });
  });
});

describe('read ticks against their replies', () => {
  it('pairs each reply quoting a human message with when that message was read', () => {
    const transcript = {
      sent: [
        { body: { type: 'text', context: { message_id: 'wamid.h1' } }, realAt: 1000 },
        // Quoting the bot's own message, or nothing, measures nothing.
        { body: { type: 'text', context: { message_id: 'wamid.own' } }, realAt: 2000 },
        { body: { type: 'text' }, realAt: 3000 },
        { body: { type: 'text', context: { message_id: 'wamid.h2' } }, realAt: 4000 },
      ],
      inbound: [
        { id: 'wamid.h1', readAt: 900 },
        { id: 'wamid.h2', readAt: null },
      ],
    };
    expect(readTicksOf('a', transcript)).toEqual([
      { agent: 'a', messageId: 'wamid.h1', replyAt: 1000, readAt: 900 },
      { agent: 'a', messageId: 'wamid.h2', replyAt: 4000, readAt: null },
    ]);
  });

  it('is late by the time from the reply to the read, 0 when read first, until the end when unread', () => {
    expect(readLateness(tick(1000, 900), 50_000)).toBe(0);
    expect(readLateness(tick(1000, 1000), 50_000)).toBe(0);
    expect(readLateness(tick(1000, 41_000), 50_000)).toBe(40_000);
    expect(readLateness(tick(1000, null), 50_000)).toBe(49_000);
  });

  it('counts the late ticks and takes p95 and max over every reply measured', () => {
    // 40 replies read first, then one read 60 s late: the p95 is still 0.
    const first = Array.from({ length: 39 }, (_, i) => tick(i * 1000, i * 1000 - 10));
    const one = readTicksLate([...first, tick(0, 60_000)], 100_000, 5000);
    expect(one).toEqual({ measured: 40, count: 1, p95Ms: 0, maxMs: 60_000, limitMs: 5000 });
    // Two late of 40: the p95 (nearest rank, the 39th) is the smaller of them.
    const two = readTicksLate([...first.slice(1), tick(0, 6000), tick(0, 60_000)], 100_000, 5000);
    expect(two).toMatchObject({ count: 2, p95Ms: 6000, maxMs: 60_000 });
    expect(readTicksLate([], 100_000, 5000)).toEqual({
      measured: 0,
      count: 0,
      p95Ms: 0,
      maxMs: 0,
      limitMs: 5000,
    });
  });

  it('is not clean when the p95 lateness is over the limit, and clean at the limit', () => {
    const late = (ms: number) =>
      tally(facts({ readTicks: [tick(1000, 1000 + ms)], readLateP95LimitMs: 5000 }));
    expect(late(5000).readTicksLate).toMatchObject({ count: 1, p95Ms: 5000, maxMs: 5000, limitMs: 5000 });
    expect(clean(late(5000))).toBe(true);
    expect(clean(late(5001))).toBe(false);
    // A message still unread is late until the run's end.
    const unread = tally(facts({ readTicks: [tick(1000, null)], endedAt: 7000, readLateP95LimitMs: 5000 }));
    expect(unread.readTicksLate.p95Ms).toBe(6000);
    expect(clean(unread)).toBe(false);
  });
});
