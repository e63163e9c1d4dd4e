/** Spec 7: every row of the error table, and the server side of the retry table. */
import {
  CREATOR,
  DAY_MS,
  codeOf,
  pageOf,
  pollIsWaiting,
  startHarness,
  type Harness,
  type Reply,
} from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    agents: [
      { id: 'demo', token: 'sim-token', creator: CREATOR },
      { id: 'bot2', token: 'bot2-token', creator: 'user:3003' },
    ],
    limits: { messages: 3, mediaUpload: 1000 },
    receipts: { deliveredAfterMs: 10_000 },
  });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

/** Sequence number the next entry will get (the sequence is shared by messages and receipts). */
async function nextSeq(): Promise<number> {
  return (await h.sim.control.humanText('probe')).offset + 1;
}

async function expectNothingSent(): Promise<void> {
  const t = await h.sim.control.transcript();
  expect(t.sent).toEqual([]);
  expect(t.counts.accepted).toBe(0);
}

const text = (body: string): Record<string, unknown> => ({ to: CREATOR, type: 'text', text: { body } });

describe('error table', () => {
  type Row = [string, number, number | 'numeric', () => Promise<Record<string, unknown>>];
  const mediaWithLongCaption = async (): Promise<Record<string, unknown>> => ({
    to: CREATOR,
    type: 'image',
    image: { id: await h.agent.uploadId(), caption: 'c'.repeat(1025) },
  });
  const expiredMedia = async (): Promise<Record<string, unknown>> => {
    const id = await h.agent.uploadId();
    await h.sim.control.advanceClock(30 * DAY_MS + 1);
    return { to: CREATOR, type: 'image', image: { id } };
  };
  it.each<Row>([
    ['text body over 4096 chars', 400, 100, async () => text('x'.repeat(4097))],
    ['caption over 1024', 400, 100, mediaWithLongCaption],
    [
      'payload object missing for the declared type',
      400,
      'numeric',
      async () => ({ to: CREATOR, type: 'image' }),
    ],
    [
      'type is reaction',
      400,
      'numeric',
      async () => ({ to: CREATOR, type: 'reaction', reaction: { message_id: 'x', emoji: '👍' } }),
    ],
    [
      'media id missing',
      400,
      131009,
      async () => ({ to: CREATOR, type: 'video', video: { caption: 'no id' } }),
    ],
    ['media id unknown', 400, 131009, async () => ({ to: CREATOR, type: 'video', video: { id: '999' } })],
    ['media id expired', 400, 131009, expiredMedia],
    ['to malformed', 400, 131009, async () => ({ ...text('x'), to: 'user 1001' })],
    ['to missing', 400, 131009, async () => ({ type: 'text', text: { body: 'x' } })],
    ['to not a string', 400, 131009, async () => ({ ...text('x'), to: 1001 })],
    ['to a bare phone number', 400, 131009, async () => ({ ...text('x'), to: '4915112345678' })],
    ['to an agent: id', 400, 131009, async () => ({ ...text('x'), to: 'agent:demo' })],
    [
      'quoted message id never issued',
      400,
      131009,
      async () => ({ ...text('x'), context: { message_id: 'wamid.made-up' } }),
    ],
    ["recipient is not the agent's creator", 403, 131005, async () => ({ ...text('x'), to: 'user:424242' })],
    ["recipient is another agent's creator", 403, 131005, async () => ({ ...text('x'), to: 'user:3003' })],
    [
      'to is user:<id> of an agent (not a human account)',
      500,
      2,
      async () => ({ ...text('x'), to: 'user:bot2' }),
    ],
    ['to is user:<id> of the sending agent itself', 500, 2, async () => ({ ...text('x'), to: 'user:demo' })],
  ])('%s: answers %i with code %s and nothing is sent', async (_name, status, code, build) => {
    const body = await build();
    const before = await nextSeq();
    const reply = await h.agent.send(body);
    expect(reply.status).toBe(status);
    if (code === 'numeric') expect(typeof codeOf(reply)).toBe('number');
    else expect(codeOf(reply)).toBe(code);
    await expectNothingSent();
    expect(await nextSeq()).toBe(before + 1);
  });

  it('rate limit exceeded: 429 code 130429 with Retry-After, nothing sent', async () => {
    for (let i = 0; i < 3; i++) expect((await h.agent.send(text(`m${i}`))).status).toBe(200);
    const reply = await h.agent.send(text('over'));
    expect([reply.status, codeOf(reply)]).toEqual([429, 130429]);
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await h.sim.control.transcript()).sent).toHaveLength(3);
  });

  it('message not accepted for delivery: 503 code 131016, nothing sent', async () => {
    await h.sim.control.fault('messages', { kind: 'not_accepted' });
    const reply = await h.agent.send(text('x'));
    expect([reply.status, codeOf(reply)]).toEqual([503, 131016]);
    await expectNothingSent();
  });

  it('poll replaced by a newer poll: 409 with an error object', async () => {
    const offset = await nextSeq();
    const older = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    const newer = h.agent.poll({ offset, timeout: 0 });
    const replaced = await older;
    expect(replaced.status).toBe(409);
    expect(typeof codeOf(replaced)).toBe('number');
    expect((await newer).status).toBe(204);
  });

  it('every error response carries an error object with a numeric code and a message', async () => {
    const replies: Reply[] = [
      await h.agent.send(text('x'.repeat(5000))),
      await h.agent.send({ ...text('x'), to: 'user:9' }),
      await h.agent.send({ ...text('x'), to: 'user:bot2' }),
      await h.agent.request('GET', '/nope'),
      await h.agent.request('GET', '/updates', { token: 'bad' }),
    ];
    for (const reply of replies) {
      expect(reply.json).toEqual({
        error: expect.objectContaining({ code: expect.any(Number), message: expect.any(String) }),
      });
    }
  });
});

describe('retry table, server side', () => {
  it('2xx: sent once; the id identifies it in receipts', async () => {
    const reply = await h.agent.send(text('once'));
    const id = reply.json.messages[0].id;
    const t = await h.sim.control.transcript();
    expect(t.sent.map((s) => s.id)).toEqual([id]);
    expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).statuses[0].id).toBe(id);
  });

  it('4xx other than 429: not sent', async () => {
    await h.agent.send({ ...text('x'), to: 'user:9' });
    await expectNothingSent();
  });

  it('429: not sent, and sendable again once the window has passed', async () => {
    for (let i = 0; i < 3; i++) await h.agent.send(text(`m${i}`));
    expect((await h.agent.send(text('over'))).status).toBe(429);
    expect((await h.sim.control.transcript()).sent).toHaveLength(3);
    await h.sim.control.advanceClock(60_000);
    expect((await h.agent.send(text('retried'))).status).toBe(200);
  });

  it('503 code 131016: not sent, and a retry is accepted', async () => {
    await h.sim.control.fault('messages', { kind: 'not_accepted' });
    expect((await h.agent.send(text('x'))).status).toBe(503);
    expect((await h.agent.send(text('x'))).status).toBe(200);
    expect((await h.sim.control.transcript()).sent).toHaveLength(1);
  });

  it('500: unknown to the client, but the platform may have sent it (injected after acceptance)', async () => {
    await h.sim.control.fault('messages', { kind: 'server_error_after_accept' });
    const reply = await h.agent.send(text('maybe'));
    expect([reply.status, codeOf(reply)]).toEqual([500, 2]);
    expect((await h.sim.control.transcript()).sent.map((s) => s.body)).toEqual([text('maybe')]);
  });

  it('dropped connection: the send may have been accepted', async () => {
    await h.sim.control.fault('messages', { kind: 'drop_after' });
    await expect(h.agent.send(text('dropped'))).rejects.toThrow();
    expect((await h.sim.control.transcript()).sent).toHaveLength(1);
  });
});
