/**
 * Mark-reads riding with the poll activity (activities/mark-reads.ts), over real HTTP against the
 * simulator: paced by the statuses window handed in, a refusal for good dropped and the rest
 * marked, a 429 stopping the riding with its Retry-After, and a poll that is over leaving what
 * would have to wait for the next one.
 */
import type { MessagingClient } from '../../messaging';
import { engineClient } from '../support/engine-client';
import { abortableSleep } from '../../activities/abortable-sleep';
import { rideMarkReads, type MarkReadInput } from '../../activities/mark-reads';
import { startSimulator, type RunningSimulator } from '../../simulator';

const WINDOW_MS = 1000;

describe('mark-reads riding with a poll', () => {
  let sim: RunningSimulator;
  let client: MessagingClient;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, limits: { windowMs: WINDOW_MS, statuses: 2 } });
    // The engine's client: it neither paces nor retries (the rider and the workflow do).
    client = engineClient(sim, { limits: { windowMs: WINDOW_MS, statuses: 2 } });
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });
  beforeEach(() => sim.control.reset());

  const humanSays = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await sim.control.humanText(`m${i}`)).id);
    return ids;
  };
  const input = (ids: string[], times: number[] = []): MarkReadInput => ({
    ids,
    limit: 2,
    windowMs: WINDOW_MS,
    marginMs: 20,
    times,
  });
  /** Rides `input`'s mark-reads with a poll that is not over. */
  const ride = (rideInput: MarkReadInput) =>
    rideMarkReads(rideInput, (id) => client.markRead(id), abortableSleep, new AbortController().signal);
  const markedRead = async () => (await sim.control.transcript()).inbound.filter((m) => m.markedRead).length;

  it('marks every message read, paced by the window: two at once, the third when the oldest ages out', async () => {
    const ids = await humanSays(3);
    const report = await ride(input(ids));
    expect(report.done).toEqual(ids);
    expect(report.refused).toEqual([]);
    expect(report.failure).toBeUndefined();
    expect(report.times).toHaveLength(3);
    expect(report.times[2] - report.times[0]).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(await markedRead()).toBe(3);
    // Not one 429: the window handed in was kept.
    const log = await sim.control.log();
    expect(log.filter((l) => l.endpoint === 'statuses' && l.status === 429)).toEqual([]);
  });

  it('keeps the window the workflow recorded: a full window waits before the first request', async () => {
    const ids = await humanSays(1);
    const now = Date.now();
    const report = await ride(input(ids, [now - 200, now - 100]));
    expect(report.done).toEqual(ids);
    expect(report.times[0] - now).toBeGreaterThanOrEqual(WINDOW_MS - 200);
  });

  it('counts a request from its answer: a service slow to take one in does not answer the third with a 429', async () => {
    const ids = await humanSays(3);
    // The first is held 400 ms before the limiter counts it: counted from when it went out, the
    // third would go 400 ms too soon.
    await sim.control.fault({ endpoint: 'statuses', count: 1, fault: { kind: 'slow', delayMs: 400 } });
    const started = Date.now();
    const report = await ride(input(ids));
    expect(report.done).toEqual(ids);
    expect(report.times[0] - started).toBeGreaterThanOrEqual(400);
    const log = await sim.control.log();
    expect(log.filter((l) => l.endpoint === 'statuses' && l.status === 429)).toEqual([]);
  });

  it('drops what the service refuses for good and goes on; stops at a 429 and says when to retry', async () => {
    const ids = await humanSays(2);
    const refused = await ride(input(['wamid.never-issued', ...ids]));
    expect(refused.refused).toEqual(['wamid.never-issued']);
    await new Promise((r) => setTimeout(r, WINDOW_MS + 50));
    await sim.control.fault({ endpoint: 'statuses', count: 1, fault: { kind: 'rate_limit', retryAfter: 3 } });
    const more = await humanSays(2);
    const limited = await ride(input(more));
    expect(limited.done).toEqual([]);
    expect(limited.failure).toMatch(/rate limited/);
    expect(limited.retryAfterMs).toBe(3000);
    // It went no further: the second was left for the next poll.
    expect(limited.times).toHaveLength(1);
  });

  it('once the poll is over, sends what may go at once and leaves what would have to wait', async () => {
    const ids = await humanSays(3);
    const over = new AbortController();
    over.abort();
    const report = await rideMarkReads(input(ids), (id) => client.markRead(id), abortableSleep, over.signal);
    expect(report.done).toEqual(ids.slice(0, 2));
    expect(await markedRead()).toBe(2);
  });

  it('once the poll failed or was cancelled, sends nothing more (another poll takes them)', async () => {
    const ids = await humanSays(3);
    const over = new AbortController();
    const halt = new AbortController();
    const report = await rideMarkReads(
      input(ids),
      async (id) => {
        await client.markRead(id);
        // The poll fails while the first is in flight: it is let finish, nothing follows (the
        // second could go at once: the window takes two).
        halt.abort();
        over.abort();
      },
      abortableSleep,
      over.signal,
      halt.signal,
    );
    expect(report.done).toEqual(ids.slice(0, 1));
    expect(report.times).toHaveLength(1);
    expect(await markedRead()).toBe(1);
  });
});
