/**
 * The read check (`unreadGraceMs`): a message first returned to the agent in a 200 page of GET
 * /updates must be marked read within the grace, on the simulator's clock, or it counts as a
 * protocol violation (`counts.unreadPastGrace`); `unreadDelivered` counts what is delivered and
 * unread now, whatever its age. The clock is frozen, so only POST /_control/clock moves it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator, type TranscriptInbound } from '../../simulator';
import { DEFAULT_UNREAD_GRACE_MS } from '../../simulator/unread-grace';
import { AgentHttp, CREATOR, pageOf, pollIsWaiting, startHarness, type Harness } from './support';

const GRACE_MS = 1000;
const FROZEN = Date.parse('2026-01-05T09:00:00Z');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ unreadGraceMs: GRACE_MS, clock: { now: () => FROZEN } });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

const inbound = async (
  id: string,
  sim: RunningSimulator = h.sim,
  agent?: string,
): Promise<TranscriptInbound> => {
  const found = (await sim.control.transcript(agent)).inbound.find((m) => m.id === id);
  if (!found) throw new Error(`no inbound ${id}`);
  return found;
};
const counts = async (sim: RunningSimulator = h.sim) => {
  const { unreadPastGrace, unreadDelivered } = (await sim.control.transcript()).counts;
  return { unreadPastGrace, unreadDelivered };
};
/** Polls from offset 0 without waiting and answers the ids on the page. */
const pollIds = async (agent: AgentHttp = h.agent): Promise<string[]> =>
  pageOf(await agent.poll({ offset: 0, timeout: 0 })).messages.map((m: { id: string }) => m.id);

describe('a delivered message left unread', () => {
  it('counts once it is unread longer than the grace after its delivery, and stays counted when read late', async () => {
    const { id } = await h.sim.control.humanText('hello');
    const { now } = await h.sim.control.clock();
    const before = Date.now();
    expect(await pollIds()).toEqual([id]);
    const delivered = await inbound(id);
    expect(delivered).toMatchObject({
      deliveredSimAt: now,
      readAt: null,
      readSimAt: null,
      pastGrace: false,
    });
    // Real epoch ms, comparable with a send's realAt.
    expect(delivered.deliveredAt).toBeGreaterThanOrEqual(before);
    expect(delivered.deliveredAt).toBeLessThanOrEqual(Date.now());
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 1 });

    // At the grace exactly it is still in time; a simulated ms later it is not.
    await h.sim.control.advanceClock(GRACE_MS);
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 1 });
    await h.sim.control.advanceClock(1);
    expect(await counts()).toEqual({ unreadPastGrace: 1, unreadDelivered: 1 });
    expect((await inbound(id)).pastGrace).toBe(true);

    // Read late: no longer unread, but it was unread past the grace.
    expect((await h.agent.markRead(id)).status).toBe(200);
    const read = await inbound(id);
    expect(read).toMatchObject({ markedRead: true, readSimAt: now + GRACE_MS + 1, pastGrace: true });
    expect(read.readAt).toBeGreaterThanOrEqual(read.deliveredAt!);
    expect(await counts()).toEqual({ unreadPastGrace: 1, unreadDelivered: 0 });
  });

  it('does not count a message marked read within the grace, however long after', async () => {
    const { id } = await h.sim.control.humanText('hello');
    await pollIds();
    await h.sim.control.advanceClock(GRACE_MS - 1);
    await h.agent.markRead(id);
    await h.sim.control.advanceClock(60_000);
    expect(await inbound(id)).toMatchObject({ markedRead: true, pastGrace: false });
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 0 });
  });

  it('counts a typing indicator as marking read, as the simulator treats it', async () => {
    const { id } = await h.sim.control.humanText('hello');
    await pollIds();
    const { now } = await h.sim.control.clock();
    expect((await h.agent.typing(id)).status).toBe(200);
    await h.sim.control.advanceClock(GRACE_MS * 10);
    expect(await inbound(id)).toMatchObject({ markedRead: true, readSimAt: now, pastGrace: false });
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 0 });
  });
});

describe('delivery', () => {
  it('has not happened for a message no page carried yet, however old: it is not counted', async () => {
    const { id } = await h.sim.control.humanText('not polled');
    await h.sim.control.advanceClock(GRACE_MS * 100);
    expect(await inbound(id)).toMatchObject({ deliveredAt: null, deliveredSimAt: null, pastGrace: false });
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 0 });
    // The grace starts at the page that carries it, not when the human wrote it.
    const { now } = await h.sim.control.clock();
    await pollIds();
    expect((await inbound(id)).deliveredSimAt).toBe(now);
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 1 });
  });

  it('is the first page only: a replay of the same offset does not move it', async () => {
    const { id } = await h.sim.control.humanText('hello');
    await pollIds();
    const first = await inbound(id);
    await h.sim.control.advanceClock(GRACE_MS / 2);
    expect(await pollIds()).toEqual([id]);
    expect(await inbound(id)).toMatchObject({
      deliveredAt: first.deliveredAt,
      deliveredSimAt: first.deliveredSimAt,
    });
    await h.sim.control.advanceClock(GRACE_MS / 2 + 1);
    expect(await counts()).toEqual({ unreadPastGrace: 1, unreadDelivered: 1 });
  });

  it('is the page a waiting long poll answers with', async () => {
    const waiting = h.agent.poll({ offset: 0, timeout: 20 });
    await pollIsWaiting(h.sim);
    const { id } = await h.sim.control.humanText('while polling');
    expect(pageOf(await waiting).messages.map((m: { id: string }) => m.id)).toEqual([id]);
    expect((await inbound(id)).deliveredSimAt).not.toBeNull();
  });

  it('does not happen when the client was gone before the page was written', async () => {
    const { id } = await h.sim.control.humanText('hello');
    // The service holds the poll for a second before it takes it up; the client gives up first.
    await h.sim.control.fault('updates', { kind: 'slow', delayMs: 1000 });
    const abort = new AbortController();
    const gone = h.agent.poll({ offset: 0, timeout: 0 }, { signal: abort.signal }).catch(() => undefined);
    await h.sim.control.waitFor(
      (c) => c.faults(),
      (pending) => pending.length === 0,
    );
    abort.abort();
    await gone;
    // The page was made (and logged) after the hold, for a connection that had closed.
    await h.sim.control.waitFor(
      (c) => c.log(),
      (log) => log.some((l) => l.endpoint === 'updates' && l.fault === 'slow'),
    );
    expect(await inbound(id)).toMatchObject({ deliveredAt: null, deliveredSimAt: null });
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 0 });
  });

  it.each([
    ['malformed_json', { kind: 'malformed_json' as const }],
    ['server_error_after_accept', { kind: 'server_error_after_accept' as const }],
    ['drop_after', { kind: 'drop_after' as const }],
  ])('does not happen when a %s fault takes the page’s place', async (_name, fault) => {
    const { id } = await h.sim.control.humanText('hello');
    await h.sim.control.fault('updates', fault);
    const reply = await h.agent.poll({ offset: 0, timeout: 0 }).catch(() => undefined);
    expect(reply?.json?.entry).toBeUndefined();
    await h.sim.control.advanceClock(GRACE_MS * 10);
    expect(await inbound(id)).toMatchObject({ deliveredAt: null, pastGrace: false });
    expect(await counts()).toEqual({ unreadPastGrace: 0, unreadDelivered: 0 });
  });
});

it('defaults to 10 simulated seconds', async () => {
  expect(DEFAULT_UNREAD_GRACE_MS).toBe(10_000);
  const sim = await startSimulator({ port: 0, clock: { now: () => FROZEN } });
  try {
    const agent = new AgentHttp(sim.url, sim.token);
    await sim.control.humanText('hello');
    await pollIds(agent);
    await sim.control.advanceClock(10_000);
    expect(await counts(sim)).toEqual({ unreadPastGrace: 0, unreadDelivered: 1 });
    await sim.control.advanceClock(1);
    expect(await counts(sim)).toEqual({ unreadPastGrace: 1, unreadDelivered: 1 });
  } finally {
    await sim.close();
  }
});

it('rejects a negative grace at start', async () => {
  await expect(startSimulator({ port: 0, unreadGraceMs: -1 })).rejects.toThrow(RangeError);
});

describe('GET /_control/totals', () => {
  it('sums every agent’s messages unread past the grace and delivered but unread now', async () => {
    const agents = ['one', 'two', 'three'].map((id) => ({ id, token: `token-${id}`, creator: CREATOR }));
    const sim = await startSimulator({
      port: 0,
      agents,
      unreadGraceMs: GRACE_MS,
      clock: { now: () => FROZEN },
    });
    try {
      const [one, two, three] = agents.map((a) => new AgentHttp(sim.url, a.token));
      const late = await sim.control.humanText('late', { agent: 'one' });
      await sim.control.humanText('late too', { agent: 'two' });
      await pollIds(one);
      await pollIds(two);
      await sim.control.advanceClock(GRACE_MS + 1);
      const fresh = await sim.control.humanText('in time', { agent: 'three' });
      expect(await pollIds(three)).toEqual([fresh.id]);
      await sim.control.humanText('never polled', { agent: 'three' });
      await sim.control.advanceClock(GRACE_MS);
      expect(await sim.control.totals()).toMatchObject({ unreadPastGrace: 2, unreadDelivered: 3 });
      await one.markRead(late.id);
      expect(await sim.control.totals()).toMatchObject({ unreadPastGrace: 2, unreadDelivered: 2 });
      // A reset forgets the agent's messages, and with them its counts.
      await sim.control.reset('two');
      expect(await sim.control.totals()).toMatchObject({ unreadPastGrace: 1, unreadDelivered: 1 });
    } finally {
      await sim.close();
    }
  });
});

describe('with a state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'amsflow-unread-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const start = (file: string) =>
    startSimulator({
      port: 0,
      stateFile: file,
      stateWriteDelayMs: 10,
      unreadGraceMs: GRACE_MS,
      clock: { now: () => FROZEN },
    });

  it('keeps when a message was delivered and read across a restart, so the check goes on', async () => {
    const file = join(dir, 'sim.json');
    const first = await start(file);
    const agent = new AgentHttp(first.url, first.token);
    const unread = await first.control.humanText('left unread');
    const read = await first.control.humanText('read in time');
    await pollIds(agent);
    await agent.markRead(read.id);
    await first.control.advanceClock(GRACE_MS / 2);
    const before = await first.control.transcript();
    await first.close();

    const second = await start(file);
    try {
      const after = await second.control.transcript();
      expect(after.inbound).toEqual(before.inbound);
      expect(after.counts).toMatchObject({ unreadPastGrace: 0, unreadDelivered: 1 });
      await second.control.advanceClock(GRACE_MS / 2 + 1);
      expect(await inbound(unread.id, second)).toMatchObject({ pastGrace: true });
      expect(await counts(second)).toEqual({ unreadPastGrace: 1, unreadDelivered: 1 });
    } finally {
      await second.close();
    }
  });

  it('reads a file written before the check: its messages count as never delivered', async () => {
    const file = join(dir, 'old.json');
    const first = await start(file);
    const agent = new AgentHttp(first.url, first.token);
    const { id } = await first.control.humanText('hello');
    await pollIds(agent);
    await first.close();
    const state = JSON.parse(readFileSync(file, 'utf8')) as {
      agents: Record<string, { inbound: Record<string, unknown>[] }>;
    };
    for (const record of state.agents.demo.inbound) {
      delete record.deliveredAt;
      delete record.deliveredSimAt;
    }
    writeFileSync(file, JSON.stringify(state));

    const second = await start(file);
    try {
      await second.control.advanceClock(GRACE_MS * 10);
      expect(await inbound(id, second)).toMatchObject({ deliveredAt: null, pastGrace: false });
      expect(await counts(second)).toEqual({ unreadPastGrace: 0, unreadDelivered: 0 });
    } finally {
      await second.close();
    }
  });
});
