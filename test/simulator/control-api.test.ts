/**
 * The control API of the contract (.contract-simulator.md), through SimulatorControl and raw HTTP.
 * Over 300 lines: the whole control API is one feature, one describe per route, on one harness.
 */
import { networkInterfaces } from 'node:os';
import { SimulatorControlError } from '../../simulator';
import { isLoopback } from '../../simulator/http-util';
import { CREATOR, eventually, pageOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    agents: [
      { id: 'demo', token: 'sim-token', creator: CREATOR, creatorName: 'Ada' },
      { id: 'second', token: 'second-token', creator: 'user:2002', creatorName: 'Bob' },
    ],
    receipts: { deliveredAfterMs: 0 },
  });
});
afterAll(() => h.sim.close());
beforeEach(async () => {
  await h.sim.control.reset();
  await h.sim.control.reset('second');
});

const raw = (
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Response> => fetch(`${h.sim.origin}${path}`, { method, body, headers });

describe('POST /_control/human', () => {
  it('fills from, id and timestamp and answers { id, offset }', async () => {
    const { id, offset } = await h.sim.control.human({ type: 'text', text: { body: 'hi' } });
    const page = pageOf(await h.agent.poll({ offset, timeout: 0 }));
    expect(page.messages[0]).toEqual({
      from: CREATOR,
      id,
      timestamp: expect.stringMatching(/^\d+$/),
      type: 'text',
      text: { body: 'hi' },
    });
  });

  it('passes an unknown type through as given', async () => {
    const { offset } = await h.sim.control.human({
      type: 'location',
      location: { latitude: 1.5, longitude: 2 },
    });
    const message = pageOf(await h.agent.poll({ offset, timeout: 0 })).messages[0];
    expect([message.type, message.location]).toEqual(['location', { latitude: 1.5, longitude: 2 }]);
  });

  it('selects the agent by the agent member', async () => {
    await h.sim.control.human({ agent: 'second', type: 'text', text: { body: 'to second' } });
    const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }, { token: 'second-token' }));
    expect(page.messages.map((m) => [m.from, m.text.body])).toEqual([['user:2002', 'to second']]);
    expect((await h.sim.control.transcript()).inbound).toEqual([]);
  });

  it.each([
    ['text without a body', { type: 'text', text: {} }],
    ['media without an id', { type: 'image', image: {} }],
    ['media with an unknown id', { type: 'image', image: { id: '1' } }],
    ['a reaction without message_id', { type: 'reaction', reaction: { emoji: 'x' } }],
    ['no type', { text: { body: 'x' } }],
  ])('rejects %s with 400', async (_name, body) => {
    await expect(h.sim.control.human(body as never)).rejects.toMatchObject({ status: 400 });
  });

  it('rejects an unknown agent with 404', async () => {
    await expect(h.sim.control.humanText('x', { agent: 'ghost' })).rejects.toBeInstanceOf(
      SimulatorControlError,
    );
    await expect(h.sim.control.humanText('x', { agent: 'ghost' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('media of the human', () => {
  it('POST /_control/media stores raw bytes with their Content-Type; GET /_control/media/<id> serves them', async () => {
    const bytes = Buffer.from([1, 2, 3, 4]);
    const { id } = await h.sim.control.uploadHumanMedia(bytes, 'image/png', { filename: 'p.png' });
    const res = await fetch(h.sim.control.mediaUrl(id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("GET /_control/media/<id> also serves the agent's uploads (for the web chat)", async () => {
    const id = await h.agent.uploadId(Buffer.from('agent pic'), 'image/jpeg');
    expect(await (await fetch(h.sim.control.mediaUrl(id))).text()).toBe('agent pic');
  });

  it('GET /_control/media/<id> answers 404 for an unknown id', async () => {
    expect((await fetch(h.sim.control.mediaUrl('123'))).status).toBe(404);
  });
});

describe('GET /_control/conversation', () => {
  it('lists both directions in sequence order with payloads, receipts state, read marks and typing', async () => {
    const question = await h.sim.control.humanText('question');
    const mediaId = await h.agent.uploadId(Buffer.from('img'), 'image/png', 'chart.png');
    const answer = (
      await h.agent.send({
        to: CREATOR,
        type: 'image',
        image: { id: mediaId, caption: 'chart' },
        context: { message_id: question.id },
      })
    ).json.messages[0].id;
    await h.agent.typing(question.id);
    await h.sim.control.read(answer);
    await h.sim.control.human({ type: 'reaction', reaction: { message_id: answer, emoji: '👍' } });
    const conversation = await h.sim.control.conversation();
    expect(conversation.agent).toEqual({ id: 'demo', name: 'demo', participant: 'agent:demo' });
    expect(conversation.creator).toEqual({ participant: CREATOR, name: 'Ada' });
    expect(conversation.typing).toBe(true);
    expect(conversation.entries).toEqual([
      expect.objectContaining({
        direction: 'in',
        id: question.id,
        type: 'text',
        payload: { body: 'question' },
        markedRead: true,
      }),
      expect.objectContaining({
        direction: 'out',
        id: answer,
        type: 'image',
        payload: expect.objectContaining({ id: mediaId, caption: 'chart', mime_type: 'image/png' }),
        context: { id: question.id, from: CREATOR },
        status: 'read',
      }),
      expect.objectContaining({
        direction: 'in',
        type: 'reaction',
        payload: { message_id: answer, emoji: '👍' },
      }),
    ]);
    const seqs = conversation.entries.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });
});

describe('GET /_control/events', () => {
  it('streams a change event at once and on every change of the conversation', async () => {
    const abort = new AbortController();
    const res = await fetch(`${h.sim.origin}/_control/events`, { signal: abort.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let received = '';
    const changes = (): number => received.split('event: change').length - 1;
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += Buffer.from(value).toString();
      }
    })().catch(() => undefined);
    await eventually('the initial change event', () => (changes() >= 1 ? true : undefined));
    await h.sim.control.humanText('ping');
    await eventually('a change event after the inbound message', () => (changes() >= 2 ? true : undefined));
    expect(received).toContain('data: {}');
    abort.abort();
    await pump;
  });
});

describe('POST /_control/read', () => {
  it("turns the message's receipt to read; { ok: true }", async () => {
    const id = await h.agent.sendTextId('read me');
    const res = await raw('POST', '/_control/read', JSON.stringify({ id }), {
      'content-type': 'application/json',
    });
    expect(await res.json()).toEqual({ ok: true });
    expect((await h.sim.control.transcript()).sent[0]).toMatchObject({
      receipts: ['sent', 'delivered', 'read'],
      read: true,
    });
  });

  it('answers 404 for a message the agent never sent', async () => {
    await expect(h.sim.control.read('wamid.nope')).rejects.toMatchObject({ status: 404 });
  });
});

describe('GET /_control/transcript and /_control/log', () => {
  it('lists accepted sends with body, times, receipts and read; inbound with read marks, offsets and read moments; counts', async () => {
    const before = Date.now();
    const inbound = await h.sim.control.humanText('hi');
    await h.agent.markRead(inbound.id);
    const body = { to: CREATOR, type: 'text', text: { body: 'hello' } };
    const id = (await h.agent.send(body)).json.messages[0].id;
    await h.agent.sendText('x'.repeat(5000));
    const t = await h.sim.control.transcript();
    expect(t.sent).toEqual([
      {
        id,
        to: CREATOR,
        type: 'text',
        body,
        acceptedAt: expect.any(Number),
        realAt: expect.any(Number),
        receipts: expect.arrayContaining(['sent']),
        read: false,
      },
    ]);
    expect(t.sent[0].realAt).toBeGreaterThanOrEqual(before);
    // Marked read without ever being polled: never delivered, so never late (unread-grace.test.ts).
    expect(t.inbound).toEqual([
      {
        id: inbound.id,
        type: 'text',
        markedRead: true,
        offset: inbound.offset,
        deliveredAt: null,
        deliveredSimAt: null,
        readAt: expect.any(Number),
        readSimAt: expect.any(Number),
        pastGrace: false,
      },
    ]);
    expect(t.inbound[0].readAt).toBeGreaterThanOrEqual(before);
    expect(t.counts).toMatchObject({
      accepted: 1,
      requests: { messages: 2, statuses: 1 },
      unreadPastGrace: 0,
      unreadDelivered: 0,
    });
  });

  it('logs every agent-API request with endpoint, method, path, status and code, without tokens', async () => {
    await h.agent.sendText('ok');
    await h.agent.sendText('x'.repeat(5000));
    await h.agent.request('GET', '/nope');
    const log = await h.sim.control.log();
    expect(log).toEqual([
      {
        at: expect.any(Number),
        receivedAt: expect.any(Number),
        endpoint: 'messages',
        method: 'POST',
        path: '/agent/v1/messages',
        status: 200,
      },
      {
        at: expect.any(Number),
        receivedAt: expect.any(Number),
        endpoint: 'messages',
        method: 'POST',
        path: '/agent/v1/messages',
        status: 400,
        code: 100,
      },
      {
        at: expect.any(Number),
        receivedAt: expect.any(Number),
        endpoint: null,
        method: 'GET',
        path: '/agent/v1/nope',
        status: 404,
        code: 404,
      },
    ]);
    expect(JSON.stringify(log)).not.toContain('sim-token');
  });
});

describe('POST /_control/clock and /_control/reset', () => {
  it('moves simulated time forward by advanceMs', async () => {
    const { now } = await h.sim.control.clock();
    const after = await h.sim.control.advanceClock(3_600_000);
    expect(after.now - now).toBeGreaterThanOrEqual(3_600_000);
  });

  it('rejects a negative advanceMs with 400', async () => {
    await expect(h.sim.control.advanceClock(-1)).rejects.toMatchObject({ status: 400 });
  });

  it("clears the agent's messages, media, counters, faults and log but keeps sequence numbers going", async () => {
    const first = await h.sim.control.humanText('before');
    const mediaId = await h.agent.uploadId();
    await h.sim.control.fault('messages', { kind: 'not_accepted' });
    await h.sim.control.reset();
    expect(await h.sim.control.transcript()).toMatchObject({
      sent: [],
      inbound: [],
      counts: { accepted: 0 },
    });
    expect(await h.sim.control.log()).toEqual([]);
    expect(await h.sim.control.faults()).toEqual([]);
    expect((await h.agent.request('GET', `/media/${mediaId}`)).status).toBe(400);
    expect((await h.sim.control.humanText('after')).offset).toBeGreaterThan(first.offset);
  });

  it('leaves other agents alone', async () => {
    await h.sim.control.humanText('kept', { agent: 'second' });
    await h.sim.control.reset('demo');
    expect((await h.sim.control.transcript('second')).inbound).toHaveLength(1);
  });
});

describe('HTTP details', () => {
  it.each([
    ['an unknown control path', 404, 'GET', '/_control/nope', undefined],
    ['a wrong method', 405, 'PUT', '/_control/human', '{}'],
    ['malformed JSON', 400, 'POST', '/_control/human', '{oops'],
    ['a JSON array', 400, 'POST', '/_control/human', '[]'],
  ])('answers %s with %i and an error object', async (_name, status, method, path, body) => {
    const res = await raw(method, path, body, { 'content-type': 'application/json' });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: unknown } }).error.code).toEqual(expect.any(Number));
  });

  it('answers loopback clients only (127.0.0.0/8, ::1, ::ffff:127.x)', async () => {
    expect(
      [
        '127.0.0.1',
        '127.5.6.7',
        '::1',
        '::ffff:127.0.0.1',
        '10.0.0.1',
        '::ffff:192.168.1.2',
        'fd00::2',
        undefined,
      ].map((a) => isLoopback(a)),
    ).toEqual([true, true, true, true, false, false, false, false]);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!external) return; // No non-loopback interface on this machine; the table above covers the rule.
    const { sim } = await startHarness({ host: '0.0.0.0' });
    try {
      const port = new URL(sim.origin).port;
      const control = await fetch(`http://${external}:${port}/_control/transcript`);
      expect(control.status).toBe(403);
      const agentApi = await fetch(`http://${external}:${port}/agent/v1/updates?offset=0&timeout=0`, {
        headers: { authorization: `Bearer ${sim.token}` },
      });
      expect(agentApi.status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
