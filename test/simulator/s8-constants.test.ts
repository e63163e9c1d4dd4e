/** Spec 8 "Other constants": each constant checked at its boundary. */
import { CREATOR, DAY_MS, codeOf, pageOf, pollIsWaiting, startHarness, timed, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  // A frozen real-time source: simulated time moves only by advanceClock, so boundaries are exact.
  const frozen = Date.parse('2030-01-01T00:00:00Z');
  h = await startHarness({
    clock: { now: () => frozen },
    limits: { messages: 1000, updates: 1000, mediaUpload: 1000, mediaGet: 1000 },
  });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

describe('constants table', () => {
  it('text body: up to 4096 characters', async () => {
    expect((await h.agent.sendText('t'.repeat(4096))).status).toBe(200);
    expect(codeOf(await h.agent.sendText('t'.repeat(4097)))).toBe(100);
  });

  it.each(['image', 'video', 'document'])('caption (%s): up to 1024 characters', async (type) => {
    const id = await h.agent.uploadId();
    expect(
      (await h.agent.send({ to: CREATOR, type, [type]: { id, caption: 'c'.repeat(1024) } })).status,
    ).toBe(200);
    expect(codeOf(await h.agent.send({ to: CREATOR, type, [type]: { id, caption: 'c'.repeat(1025) } }))).toBe(
      100,
    );
  });

  it('long-poll timeout: up to 25 seconds', async () => {
    expect(codeOf(await h.agent.poll({ offset: 0, timeout: 26 }))).toBe(100);
    const offset = (await h.sim.control.humanText('x')).offset + 1;
    const poll = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    await h.sim.control.advanceClock(24_999);
    expect((await h.sim.control.transcript()).polling).toBe(true);
    await h.sim.control.advanceClock(1);
    expect((await poll).status).toBe(204);
  });

  it('long-poll timeout: default 15 seconds', async () => {
    const offset = (await h.sim.control.humanText('x')).offset + 1;
    const poll = h.agent.poll({ offset });
    await pollIsWaiting(h.sim);
    await h.sim.control.advanceClock(14_999);
    expect((await h.sim.control.transcript()).polling).toBe(true);
    await h.sim.control.advanceClock(1);
    expect((await poll).status).toBe(204);
  });

  it('limit default for updates: 50', async () => {
    for (let i = 0; i < 51; i++) await h.sim.control.humanText(`m${i}`);
    expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).messages).toHaveLength(50);
  });

  it('update buffer retention: 30 days', async () => {
    const { id, offset } = await h.sim.control.humanText('x');
    await h.sim.control.advanceClock(30 * DAY_MS - 1);
    expect(pageOf(await h.agent.poll({ offset, timeout: 0 })).messages.map((m) => m.id)).toEqual([id]);
    await h.sim.control.advanceClock(2);
    expect((await h.agent.poll({ offset, timeout: 0 })).status).toBe(204);
  });

  it('media lifetime: 30 days', async () => {
    const id = await h.agent.uploadId();
    await h.sim.control.advanceClock(30 * DAY_MS - 1);
    expect((await h.agent.request('GET', `/media/${id}`)).status).toBe(200);
    await h.sim.control.advanceClock(1);
    expect(codeOf(await h.agent.request('GET', `/media/${id}`))).toBe(131009);
  });

  it('concurrent polls per agent: 1', async () => {
    const offset = (await h.sim.control.humanText('x')).offset + 1;
    const polls = [h.agent.poll({ offset, timeout: 25 })];
    await pollIsWaiting(h.sim);
    polls.push(h.agent.poll({ offset, timeout: 25 }));
    expect((await polls[0]).status).toBe(409);
    await h.sim.control.humanText('served');
    expect((await polls[1]).status).toBe(200);
  });

  it('concurrent sends to one recipient: not allowed; the simulator counts overlaps', async () => {
    await h.sim.control.fault('messages', { kind: 'slow', delayMs: 200 });
    const { ms } = await timed(Promise.all([h.agent.sendText('a'), h.agent.sendText('b')]));
    expect(ms).toBeGreaterThanOrEqual(150);
    expect((await h.sim.control.transcript()).counts.overlappingSends).toBe(1);
  });
});
