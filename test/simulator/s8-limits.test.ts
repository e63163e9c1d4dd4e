/** Spec 8 limits: per-agent, per-endpoint counters over a rolling 60 s window; 429 code 130429. */
import { AgentHttp, CREATOR, codeOf, startHarness, type Harness, type Reply } from './support';

let h: Harness;
let inbound: string;
let mediaId: string;
beforeAll(async () => {
  // A frozen real-time source: simulated time moves only by advanceClock, so windows are exact.
  h = await startHarness({ clock: { now: () => Date.parse('2030-01-01T00:00:00Z') } });
});
afterAll(() => h.sim.close());
beforeEach(async () => {
  await h.sim.control.reset();
  // Fixtures are made through the control API, so they use none of the agent's budget.
  inbound = (await h.sim.control.humanText('hi')).id;
  mediaId = (await h.sim.control.uploadHumanMedia(Buffer.from('x'), 'image/png')).id;
  await h.sim.control.human({ type: 'image', image: { id: mediaId } });
});

type Call = (agent: AgentHttp) => Promise<Reply>;
const limitsTable: [string, number, Call][] = [
  ['POST /messages', 12, (a) => a.sendText('x')],
  ['POST /statuses', 12, (a) => a.markRead(inbound)],
  ['POST /statuses with a typing indicator', 12, (a) => a.typing(inbound)],
  ['GET /updates', 15, (a) => a.poll({ offset: 0, timeout: 0 })],
  ['POST /media', 12, (a) => a.upload(Buffer.from('x'), 'image/png', 'x.png')],
  ['GET /media/<id>', 12, (a) => a.request('GET', `/media/${mediaId}`)],
  ['DELETE /media/<id>', 12, (a) => a.request('DELETE', `/media/999`)],
];

describe('limits table', () => {
  it.each(limitsTable)(
    '%s: admits %i per minute, then answers 429 code 130429',
    async (_name, limit, call) => {
      for (let i = 0; i < limit; i++) expect((await call(h.agent)).status).toBe(200);
      const over = await call(h.agent);
      expect([over.status, codeOf(over)]).toEqual([429, 130429]);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    },
  );

  it.each(limitsTable)(
    '%s: admits again once the oldest call ages out of the 60 s window',
    async (_name, limit, call) => {
      for (let i = 0; i < limit; i++) await call(h.agent);
      expect((await call(h.agent)).status).toBe(429);
      await h.sim.control.advanceClock(60_000);
      expect((await call(h.agent)).status).toBe(200);
    },
  );
});

describe('window', () => {
  it('is rolling: calls age out one by one, 60 s after each was made', async () => {
    for (let i = 0; i < 6; i++) await h.agent.sendText('early');
    await h.sim.control.advanceClock(30_000);
    for (let i = 0; i < 6; i++) await h.agent.sendText('late');
    await h.sim.control.advanceClock(30_000);
    // The six early calls have aged out, the six late ones have not.
    for (let i = 0; i < 6; i++) expect((await h.agent.sendText('again')).status).toBe(200);
    expect((await h.agent.sendText('one too many')).status).toBe(429);
  });

  it('counts only admitted requests: 429 answers do not push the window out', async () => {
    for (let i = 0; i < 12; i++) await h.agent.sendText('x');
    await h.sim.control.advanceClock(59_000);
    for (let i = 0; i < 5; i++) expect((await h.agent.sendText('rejected')).status).toBe(429);
    await h.sim.control.advanceClock(1000);
    expect((await h.agent.sendText('admitted')).status).toBe(200);
  });

  it('counts requests that are admitted and then fail validation', async () => {
    for (let i = 0; i < 12; i++)
      expect((await h.agent.send({ to: CREATOR, type: 'reaction' })).status).toBe(400);
    expect((await h.agent.sendText('valid but over the limit')).status).toBe(429);
  });

  it('gives Retry-After as whole seconds until the oldest call ages out', async () => {
    for (let i = 0; i < 12; i++) await h.agent.sendText('x');
    await h.sim.control.advanceClock(20_500);
    const over = await h.agent.sendText('over');
    // 39.5 s left, rounded up.
    expect(over.headers.get('retry-after')).toBe('40');
  });
});

describe('counters', () => {
  it('keeps the three media counters independent of each other', async () => {
    for (let i = 0; i < 12; i++) await h.agent.upload(Buffer.from('x'), 'image/png', 'x.png');
    expect((await h.agent.upload(Buffer.from('x'), 'image/png', 'x.png')).status).toBe(429);
    expect((await h.agent.request('GET', `/media/${mediaId}`)).status).toBe(200);
    expect((await h.agent.request('DELETE', '/media/999')).status).toBe(200);
  });

  it('keeps every endpoint independent: a full send window leaves polls and marks untouched', async () => {
    for (let i = 0; i < 12; i++) await h.agent.sendText('x');
    expect((await h.agent.sendText('x')).status).toBe(429);
    expect((await h.agent.poll({ offset: 0, timeout: 0 })).status).toBe(200);
    expect((await h.agent.markRead(inbound)).status).toBe(200);
  });

  it('sums all clients sharing one token', async () => {
    const clients = [h.agent, new AgentHttp(h.sim.url, h.sim.token), new AgentHttp(h.sim.url, h.sim.token)];
    for (let i = 0; i < 12; i++) await clients[i % 3].sendText('x');
    for (const client of clients) expect((await client.sendText('x')).status).toBe(429);
  });

  it('counts each rejected request in the transcript', async () => {
    for (let i = 0; i < 14; i++) await h.agent.sendText('x');
    const { counts } = await h.sim.control.transcript();
    expect([counts.requests.messages, counts.status429.messages, counts.accepted]).toEqual([14, 2, 12]);
  });

  it('lets one poll with timeout=25 take 25 s of the window: about 2.4 of the 15 per minute', async () => {
    // Fifteen back-to-back long polls of 25 s span 6 minutes; within any minute at most 3 start.
    for (let i = 0; i < 3; i++) {
      const poll = h.agent.poll({ offset: 999, timeout: 25 });
      await h.sim.control.waitFor(
        (c) => c.transcript(),
        (t) => t.polling,
      );
      await h.sim.control.advanceClock(25_000);
      expect((await poll).status).toBe(204);
    }
    expect((await h.sim.control.transcript()).counts.status429.updates).toBe(0);
  });
});

describe('Retry-After', () => {
  it('is given in real seconds at the clock speed (speed 10: a 60 s window is 6 real seconds)', async () => {
    const frozen = Date.parse('2030-01-01T00:00:00Z');
    const { sim, agent } = await startHarness({ clock: { speed: 10, now: () => frozen } });
    try {
      for (let i = 0; i < 12; i++) await agent.sendText('x');
      const over = await agent.sendText('x');
      expect([over.status, over.headers.get('retry-after')]).toEqual([429, '6']);
    } finally {
      await sim.close();
    }
  });

  it('is absent with retryAfter: false', async () => {
    const { sim, agent } = await startHarness({ retryAfter: false });
    try {
      for (let i = 0; i < 12; i++) await agent.sendText('x');
      const over = await agent.sendText('x');
      expect([over.status, codeOf(over), over.headers.get('retry-after')]).toEqual([429, 130429, null]);
    } finally {
      await sim.close();
    }
  });

  it('follows configured limits and window', async () => {
    const { sim, agent } = await startHarness({ limits: { messages: 2, windowMs: 1000 } });
    try {
      await agent.sendText('a');
      await agent.sendText('b');
      expect((await agent.sendText('c')).status).toBe(429);
      await sim.control.advanceClock(1000);
      expect((await agent.sendText('d')).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
