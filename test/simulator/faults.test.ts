/** Fault injection (contract: POST /_control/faults), applied to the next N matching requests. */
import {
  CREATOR,
  codeOf,
  isPending,
  pageOf,
  pollIsWaiting,
  startHarness,
  timed,
  type Harness,
} from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ limits: { messages: 3 } });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

const sentCount = async (): Promise<number> => (await h.sim.control.transcript()).sent.length;

describe('fault kinds on POST /messages', () => {
  it('rate_limit with retryAfter: 429 code 130429 with that Retry-After; nothing sent', async () => {
    await h.sim.control.fault('messages', { kind: 'rate_limit', retryAfter: 7 });
    const reply = await h.agent.sendText('x');
    expect([reply.status, codeOf(reply), reply.headers.get('retry-after')]).toEqual([429, 130429, '7']);
    expect(await sentCount()).toBe(0);
  });

  it('rate_limit with retryAfter null: 429 without Retry-After', async () => {
    await h.sim.control.fault('messages', { kind: 'rate_limit', retryAfter: null });
    const reply = await h.agent.sendText('x');
    expect([reply.status, reply.headers.get('retry-after')]).toEqual([429, null]);
  });

  it('not_accepted: 503 code 131016; nothing sent', async () => {
    await h.sim.control.fault('messages', { kind: 'not_accepted' });
    const reply = await h.agent.sendText('x');
    expect([reply.status, codeOf(reply)]).toEqual([503, 131016]);
    expect(await sentCount()).toBe(0);
  });

  it('server_error_after_accept: the send is accepted and recorded, then 500 code 2', async () => {
    await h.sim.control.fault('messages', { kind: 'server_error_after_accept' });
    const reply = await h.agent.sendText('accepted anyway');
    expect([reply.status, codeOf(reply)]).toEqual([500, 2]);
    const t = await h.sim.control.transcript();
    expect(t.sent).toHaveLength(1);
    expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).statuses[0].id).toBe(t.sent[0].id);
  });

  it('drop_before: the connection drops and nothing happens', async () => {
    await h.sim.control.fault('messages', { kind: 'drop_before' });
    await expect(h.agent.sendText('x')).rejects.toThrow();
    expect(await sentCount()).toBe(0);
    expect((await h.sim.control.log()).at(-1)).toMatchObject({ endpoint: 'messages', status: 0 });
  });

  it('drop_after: the send is accepted, then the connection drops without an answer', async () => {
    await h.sim.control.fault('messages', { kind: 'drop_after' });
    await expect(h.agent.sendText('x')).rejects.toThrow();
    expect(await sentCount()).toBe(1);
  });

  it('slow: waits delayMs real ms, then answers normally', async () => {
    await h.sim.control.fault('messages', { kind: 'slow', delayMs: 300 });
    const { value, ms } = await timed(h.agent.sendText('x'));
    expect(value.status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(290);
  });

  it('slow: lets a client read timeout fire while the simulator still processes the request', async () => {
    await h.sim.control.fault('messages', { kind: 'slow', delayMs: 300 });
    await expect(h.agent.sendText('x', {}).then(() => undefined)).resolves.toBeUndefined();
    await h.sim.control.fault('messages', { kind: 'slow', delayMs: 300 });
    const aborted = h.agent.request('POST', '/messages', {
      json: { to: CREATOR, type: 'text', text: { body: 'y' } },
      signal: AbortSignal.timeout(50),
    });
    await expect(aborted).rejects.toThrow();
    // The simulator finishes the request the client gave up on: the send is accepted.
    await h.sim.control.waitFor(
      (c) => c.transcript(),
      (t) => t.sent.length === 2,
    );
  });

  it('malformed_json: processed and accepted, then 200 with a body that is not JSON', async () => {
    await h.sim.control.fault('messages', { kind: 'malformed_json' });
    const reply = await h.agent.sendText('x');
    expect(reply.status).toBe(200);
    expect(() => JSON.parse(reply.text) as unknown).toThrow();
    expect(await sentCount()).toBe(1);
  });
});

describe('fault kinds on GET /updates', () => {
  it('poll_replaced: 409 on the next poll', async () => {
    await h.sim.control.fault('updates', { kind: 'poll_replaced' });
    const reply = await h.agent.poll({ offset: 0, timeout: 0 });
    expect(reply.status).toBe(409);
    expect(typeof codeOf(reply)).toBe('number');
  });

  it("tags an injected 409 in the request log, and not a real replaced poll's", async () => {
    await h.sim.control.fault('updates', { kind: 'poll_replaced' });
    expect((await h.agent.poll({ offset: 0, timeout: 0 })).status).toBe(409);
    const older = h.agent.poll({ offset: 0, timeout: 25 });
    await pollIsWaiting(h.sim);
    const newer = h.agent.poll({ offset: 0, timeout: 0 });
    expect((await older).status).toBe(409);
    await newer;
    const log = await h.sim.control.log();
    expect(log.filter((l) => l.status === 409).map((l) => l.fault ?? 'real')).toEqual([
      'poll_replaced',
      'real',
    ]);
    expect(log.filter((l) => l.status !== 409).every((l) => l.fault === undefined)).toBe(true);
    expect(log.some((l) => l.replacedByAbandoned)).toBe(false);
  });

  it('marks a 409 whose newer poll was a request its client had closed before it was taken up', async () => {
    // The client gives up on a poll the service is slow to take up, then polls again; the service
    // takes the first up after all and it replaces the second: one poll open at a time on the
    // client's side, so the log says the 409 came from an abandoned request.
    await h.sim.control.fault('updates', { kind: 'slow', delayMs: 400 });
    const abandoned = h.agent.poll({ offset: 0, timeout: 5 }, { signal: AbortSignal.timeout(50) });
    await expect(abandoned).rejects.toThrow();
    const live = h.agent.poll({ offset: 0, timeout: 25 });
    expect((await live).status).toBe(409);
    const log = await h.sim.control.log();
    expect(log.map((l) => [l.status, l.fault, l.replacedByAbandoned])).toEqual([
      [409, undefined, true],
      [0, 'slow', undefined],
    ]);
  });

  it('malformed_json: 200 with a body that is not JSON', async () => {
    await h.sim.control.fault('updates', { kind: 'malformed_json' });
    const reply = await h.agent.poll({ offset: 0, timeout: 0 });
    expect(reply.status).toBe(200);
    expect(reply.json).toBeUndefined();
  });

  it('slow on a poll: a long poll still wakes for traffic after the delay', async () => {
    await h.sim.control.fault('updates', { kind: 'slow', delayMs: 100 });
    const offset = (await h.sim.control.humanText('x')).offset + 1;
    const poll = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    expect(await isPending(poll)).toBe(true);
    await h.sim.control.humanText('now');
    expect(pageOf(await poll).messages).toHaveLength(1);
  });
});

describe('matching', () => {
  it('applies to the next count requests only', async () => {
    await h.sim.control.fault({ endpoint: 'messages', count: 2, fault: { kind: 'not_accepted' } });
    expect((await h.agent.sendText('a')).status).toBe(503);
    expect((await h.agent.sendText('b')).status).toBe(503);
    expect((await h.agent.sendText('c')).status).toBe(200);
  });

  it('applies only to its endpoint', async () => {
    await h.sim.control.fault('media.upload', { kind: 'not_accepted' });
    expect((await h.agent.sendText('a')).status).toBe(200);
    expect((await h.agent.upload(Buffer.from('x'), 'image/png', 'x.png')).status).toBe(503);
  });

  it('tells typing from mark read on POST /statuses', async () => {
    const { id } = await h.sim.control.humanText('x');
    await h.sim.control.fault('typing', { kind: 'not_accepted' });
    expect((await h.agent.markRead(id)).status).toBe(200);
    expect((await h.agent.typing(id)).status).toBe(503);
  });

  it('applies before limits: a fault answer does not use the budget', async () => {
    await h.sim.control.fault({ endpoint: 'messages', count: 5, fault: { kind: 'rate_limit' } });
    for (let i = 0; i < 5; i++) expect((await h.agent.sendText('x')).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await h.agent.sendText('x')).status).toBe(200);
  });

  it('applies after auth: a request with a bad token does not consume it', async () => {
    await h.sim.control.fault('messages', { kind: 'not_accepted' });
    expect((await h.agent.sendText('x', {}).then(() => h.agent.send({}, { token: 'bad' }))).status).toBe(401);
    const pending = await h.sim.control.faults();
    expect(pending).toEqual([]);
  });

  it('applies to the named agent only', async () => {
    const { sim, agent } = await startHarness({
      agents: [
        { id: 'a', token: 'ta', creator: 'user:1' },
        { id: 'b', token: 'tb', creator: 'user:2' },
      ],
    });
    try {
      await sim.control.fault({ agent: 'b', endpoint: 'messages', fault: { kind: 'not_accepted' } });
      expect((await agent.send({ to: 'user:1', type: 'text', text: { body: 'x' } })).status).toBe(200);
      expect(
        (await agent.send({ to: 'user:2', type: 'text', text: { body: 'x' } }, { token: 'tb' })).status,
      ).toBe(503);
    } finally {
      await sim.close();
    }
  });
});

describe('listing and clearing', () => {
  it('lists pending faults with their remaining count, and clears them', async () => {
    const { id } = await h.sim.control.fault({
      endpoint: 'updates',
      count: 3,
      fault: { kind: 'poll_replaced' },
    });
    await h.agent.poll({ offset: 0, timeout: 0 });
    expect(await h.sim.control.faults()).toEqual([
      { id, agent: 'demo', endpoint: 'updates', remaining: 2, fault: { kind: 'poll_replaced' } },
    ]);
    await h.sim.control.clearFaults();
    expect(await h.sim.control.faults()).toEqual([]);
    expect((await h.agent.poll({ offset: 0, timeout: 0 })).status).toBe(200);
  });

  it.each([
    ['an unknown endpoint', { endpoint: 'nope', fault: { kind: 'not_accepted' } }],
    ['an unknown kind', { endpoint: 'messages', fault: { kind: 'explode' } }],
    ['slow without delayMs', { endpoint: 'messages', fault: { kind: 'slow' } }],
    ['a count of 0', { endpoint: 'messages', count: 0, fault: { kind: 'not_accepted' } }],
  ])('rejects %s with 400', async (_name, body) => {
    const res = await fetch(`${h.sim.origin}/_control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
  });
});
