/**
 * Read ticks keep pace with replies (issue 36): every message the human wrote is marked read
 * before its reply, or at the latest by as much as the statuses window requires after a 429,
 * across a worker killed while a mark-read was under way, continue-as-new, and 429 and 503 on
 * POST /statuses (a refused mark-read goes again once the service allows, not with a later poll).
 * The spec's minute and 25-s long polls, as an agent runs them: a mark-read left for a later poll
 * would come tens of seconds after its reply.
 */
import type { TranscriptInbound, TranscriptSent } from '../../simulator/control-client';
import type { Fault } from '../../simulator/wire';
import { getAgentState } from '../../client/agents';
import { waitFor } from '../support/temporal';
import { engineSuite, type Engine } from './support';

jest.setTimeout(180_000);

const SPEC = { windowMs: 60_000, tuning: { pollTimeoutSeconds: 25 } };

/** The reply quoting each human message, by the quoted id. */
function repliesByQuote(sent: TranscriptSent[]): Map<string, TranscriptSent> {
  const replies = new Map<string, TranscriptSent>();
  for (const s of sent) {
    const quoted = (s.body as { context?: { message_id?: string } }).context?.message_id;
    if (quoted && !replies.has(quoted)) replies.set(quoted, s);
  }
  return replies;
}

/**
 * Waits until every message of `ids` is marked read and has its reply (when `replied`), then
 * returns how late each read tick came after its reply (ms; negative: before it).
 */
async function readTicks(
  engine: Engine,
  ids: string[],
  replied: (id: string) => boolean = () => true,
): Promise<{ lateness: Map<string, number>; inbound: TranscriptInbound[] }> {
  const transcript = await waitFor(
    'every message read, and replied to',
    async () => {
      const t = await engine.transcript();
      const replies = repliesByQuote(t.sent);
      const done = ids.every(
        (id) => t.inbound.find((m) => m.id === id)?.readAt != null && (!replied(id) || replies.has(id)),
      );
      return done && t;
    },
    { timeoutMs: 90_000, intervalMs: 200 },
  ).catch(async (err: Error) => {
    const t = await engine.transcript();
    const state = await getAgentState(engine.client, engine.agentKey).catch(String);
    throw new Error(
      `${err.message}\ninbound: ${JSON.stringify(t.inbound.map((m) => [m.id, m.readAt]))}\nsent: ${JSON.stringify(
        t.sent.map((s) => [s.body, s.realAt]),
      )}\nstate: ${JSON.stringify(state)}`,
    );
  });
  const replies = repliesByQuote(transcript.sent);
  const lateness = new Map<string, number>();
  for (const id of ids) {
    const reply = replies.get(id);
    const readAt = transcript.inbound.find((m) => m.id === id)!.readAt!;
    if (reply) lateness.set(id, readAt - reply.realAt);
  }
  return { lateness, inbound: transcript.inbound };
}

/** Resolves once the pending fault of `endpoint` has been met by a request (it is under way). */
async function faultMet(engine: Engine, endpoint: string): Promise<void> {
  await waitFor(
    `a request to meet the ${endpoint} fault`,
    async () => !(await engine.sim.control.faults(engine.agentKey)).some((f) => f.endpoint === endpoint),
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

/** The next `count` requests to POST /statuses meet `fault`. */
async function faultStatuses(engine: Engine, fault: Fault, count: number): Promise<void> {
  await engine.sim.control.fault({ agent: engine.agentKey, endpoint: 'statuses', count, fault });
}

/**
 * How late a read tick may come after its reply when refusals stand in its way: the waits they
 * impose (each refused request's Retry-After or backoff rung, one after another, since a vehicle's
 * mark-reads go one at a time and stop at a refusal), plus workflow tasks and a continue-as-new's
 * hand-over. Not a latency target (the bench has those): the rule it checks is that a refused
 * mark-read goes again as soon as the service allows, where one left for a later poll would come
 * with that poll, 25 s or more after its reply.
 */
function readBound(waitsMs: number[]): number {
  return waitsMs.reduce((sum, ms) => sum + ms, 0) + 2_500;
}

async function polling(engine: Engine): Promise<void> {
  await waitFor('the agent to poll', async () => (await engine.transcript()).polling, { timeoutMs: 60_000 });
}

describe('read ticks keep pace with replies', () => {
  const suite = engineSuite();

  it('a worker killed while the mark-reads of a page were under way: every message read before its reply', async () => {
    const engine = await suite.start(SPEC);
    let worker = await engine.startWorker();
    await polling(engine);
    // The first mark-read request hangs (the service processes it 8 s later), so the kill lands
    // while the page's mark-reads are under way and their outcome is unknown.
    await faultStatuses(engine, { kind: 'slow', delayMs: 8000 }, 1);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await engine.human(`echo page ${n}`));
    await faultMet(engine, 'statuses');
    await worker.kill();
    worker = await engine.startWorker();
    const { lateness } = await readTicks(engine, ids);
    expect([...lateness.entries()].filter(([, ms]) => ms > 0)).toEqual([]);
    expect(lateness.size).toBe(3);
    expect((await engine.sentTexts()).filter((t) => t.startsWith('page '))).toHaveLength(3);
  });

  it('a worker killed while a message with no reply yet was being marked read: read again at once, well before the late reply', async () => {
    const engine = await suite.start(SPEC);
    let worker = await engine.startWorker();
    await polling(engine);
    await faultStatuses(engine, { kind: 'slow', delayMs: 30_000 }, 1);
    // "sleepy" answers "awake" 8 s later, without quoting: its message is marked read on its own.
    const id = await engine.human('sleepy');
    await faultMet(engine, 'statuses');
    await worker.kill();
    const restartedAt = Date.now();
    worker = await engine.startWorker();
    await readTicks(engine, [id], () => false);
    const t = await engine.transcript();
    const readAt = t.inbound.find((m) => m.id === id)!.readAt!;
    // Long before the hung request (30 s) could have marked it, and before "awake".
    expect(readAt - restartedAt).toBeLessThan(20_000);
    const awake = await waitFor('"awake"', async () =>
      (await engine.transcript()).sent.find(
        (s) => (s.body as { text?: { body?: string } }).text?.body === 'awake',
      ),
    );
    expect(readAt).toBeLessThan(awake.realAt);
  });

  it('across continue-as-new, each first mark-read refused with a 429: read no later than Retry-After after its reply', async () => {
    const engine = await suite.start({ ...SPEC, tuning: { ...SPEC.tuning, continueAsNewAfterEvents: 100 } });
    await engine.startWorker();
    await polling(engine);
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) {
      // Runs roll over with a mark-read waiting out its Retry-After (carried to the next run).
      await faultStatuses(engine, { kind: 'rate_limit', retryAfter: 1 }, 1);
      ids.push(await engine.human(`echo can ${n}`));
      await readTicks(engine, ids);
    }
    const { lateness } = await readTicks(engine, ids);
    // One refusal in each message's way: its Retry-After.
    for (const [id, ms] of lateness)
      expect({ id, ms, late: ms > readBound([1000]) }).toMatchObject({ late: false });
    // The runs rolled over while they went on, each with the agent's short workflow task timeout
    // (a task lost with its worker holds replies and read ticks for that long).
    expect((await getAgentState(engine.client, engine.agentKey))!.generation).toBeGreaterThanOrEqual(2);
    const { raw } = await engine.client.workflow.getHandle(engine.agentWorkflowId).describe();
    expect(Number(raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(7);
  });

  it('429 and 503 on POST /statuses: read no later after its reply than the Retry-After and backoff require', async () => {
    const engine = await suite.start(SPEC);
    await engine.startWorker();
    await polling(engine);
    await faultStatuses(engine, { kind: 'rate_limit', retryAfter: 1 }, 2);
    const ids: string[] = [];
    for (const n of [1, 2]) ids.push(await engine.human(`echo limited ${n}`));
    await readTicks(engine, ids);
    await faultStatuses(engine, { kind: 'not_accepted' }, 2);
    for (const n of [3, 4]) ids.push(await engine.human(`echo refused ${n}`));
    const { lateness } = await readTicks(engine, ids);
    expect(lateness.size).toBe(4);
    // Two refusals in a row in each pair's way: the first message's request refused twice, the
    // second waiting behind it; two Retry-Afters (1 s) or two rungs of the backoff (0.5 s each).
    for (const [id, ms] of lateness)
      expect({ id, ms, late: ms > readBound([1000, 1000]) }).toMatchObject({ late: false });
    const log = await engine.sim.control.log(engine.agentKey);
    expect(log.filter((l) => l.endpoint === 'statuses' && l.fault).length).toBe(4);
  });
});
