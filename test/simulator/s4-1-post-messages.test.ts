/**
 * Spec 4.1 POST /messages: request body, text and media objects, quoting, rules 1-2.
 * Over 300 lines: test/simulator has one file per spec section, and 4.1 is the largest.
 */
import { AgentHttp, CREATOR, DAY_MS, codeOf, pageOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    agents: [
      { id: 'demo', token: 'sim-token', creator: CREATOR, creatorName: 'Ada' },
      { id: 'other', token: 'other-token', creator: 'user:2002' },
    ],
    limits: { messages: 10_000, mediaUpload: 10_000 },
  });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

describe('send result (2.6)', () => {
  it('answers 200 with messaging_product, contacts [{input, wa_id}] and messages [{id}]', async () => {
    const reply = await h.agent.sendText('hello');
    expect(reply.status).toBe(200);
    expect(typeof reply.json.messaging_product).toBe('string');
    expect(reply.json.contacts).toEqual([{ input: CREATOR, wa_id: CREATOR }]);
    expect(reply.json.messages).toHaveLength(1);
    expect(reply.json.messages[0].id).toMatch(/\S+/);
  });

  it('gives every accepted send a fresh message id', async () => {
    const ids = new Set([
      await h.agent.sendTextId('a'),
      await h.agent.sendTextId('b'),
      await h.agent.sendTextId('c'),
    ]);
    expect(ids.size).toBe(3);
  });

  it('records the accepted request body in the transcript', async () => {
    const body = { to: CREATOR, type: 'text', text: { body: 'keep me', preview_url: false } };
    const id = (await h.agent.send(body)).json.messages[0].id;
    const { sent } = await h.sim.control.transcript();
    expect(sent).toEqual([expect.objectContaining({ id, to: CREATOR, type: 'text', body, read: false })]);
  });
});

describe('types', () => {
  it.each(['image', 'video', 'audio', 'document', 'sticker'])(
    'accepts a %s send that references an uploaded media id',
    async (type) => {
      const mediaId = await h.agent.uploadId();
      const reply = await h.agent.send({ to: CREATOR, type, [type]: { id: mediaId } });
      expect(reply.status).toBe(200);
    },
  );

  it('accepts a document with a filename that keeps its extension', async () => {
    const mediaId = await h.agent.uploadId(Buffer.from('%PDF'), 'application/pdf', 'report.pdf');
    const reply = await h.agent.send({
      to: CREATOR,
      type: 'document',
      document: { id: mediaId, filename: 'Q3 report.pdf', caption: 'numbers' },
    });
    expect(reply.status).toBe(200);
    expect((await h.sim.control.transcript()).sent[0].body.document).toEqual({
      id: mediaId,
      filename: 'Q3 report.pdf',
      caption: 'numbers',
    });
  });

  it.each(['image', 'video', 'document'])('accepts an optional caption on %s', async (type) => {
    const mediaId = await h.agent.uploadId();
    expect((await h.agent.send({ to: CREATOR, type, [type]: { id: mediaId, caption: 'look' } })).status).toBe(
      200,
    );
  });

  it.each(['audio', 'sticker'])('rejects a caption on %s, which takes none (400, code 100)', async (type) => {
    const mediaId = await h.agent.uploadId();
    const reply = await h.agent.send({ to: CREATOR, type, [type]: { id: mediaId, caption: 'no' } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it.each(['image', 'video', 'audio', 'sticker'])(
    'rejects a filename on %s, which takes none (400, code 100)',
    async (type) => {
      const mediaId = await h.agent.uploadId();
      const reply = await h.agent.send({ to: CREATOR, type, [type]: { id: mediaId, filename: 'x.png' } });
      expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
    },
  );

  it('rejects a send of type reaction with 400', async () => {
    const reply = await h.agent.send({
      to: CREATOR,
      type: 'reaction',
      reaction: { message_id: 'wamid.x', emoji: '👍' },
    });
    expect(reply.status).toBe(400);
    expect(typeof codeOf(reply)).toBe('number');
  });

  it('rejects a payload object missing for the declared type with 400', async () => {
    const reply = await h.agent.send({ to: CREATOR, type: 'text', image: { id: '1' } });
    expect(reply.status).toBe(400);
    expect(typeof codeOf(reply)).toBe('number');
  });
});

describe('text object', () => {
  it('accepts a body of exactly 4096 characters and rejects 4097 (400, code 100)', async () => {
    expect((await h.agent.sendText('x'.repeat(4096))).status).toBe(200);
    const reply = await h.agent.sendText('x'.repeat(4097));
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it('counts characters, not UTF-16 units: 4096 emoji are accepted', async () => {
    expect((await h.agent.sendText('😀'.repeat(4096))).status).toBe(200);
  });

  it('rejects a preview_url that is not a boolean', async () => {
    const reply = await h.agent.send({ to: CREATOR, type: 'text', text: { body: 'x', preview_url: 'yes' } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it.each([
    { name: 'http:// first URL', body: 'see http://example.com now', previewUrl: true, status: 200 },
    { name: 'https:// first URL', body: 'see https://example.com/a?b=c', previewUrl: true, status: 200 },
    { name: 'HTTPS in capitals', body: 'see HTTPS://EXAMPLE.COM', previewUrl: true, status: 200 },
    { name: 'no URL at all', body: 'nothing to preview', previewUrl: true, status: 200 },
    { name: 'www. first link', body: 'go to www.example.com', previewUrl: true, status: 400 },
    {
      name: 'ftp:// first link',
      body: 'ftp://files.example.com then https://example.com',
      previewUrl: true,
      status: 400,
    },
    {
      name: 'https first, www later',
      body: 'https://example.com and www.example.org',
      previewUrl: true,
      status: 200,
    },
    { name: 'www. link without preview_url', body: 'go to www.example.com', previewUrl: false, status: 200 },
    {
      name: 'www. link with preview_url absent',
      body: 'go to www.example.com',
      previewUrl: undefined,
      status: 200,
    },
  ])('preview_url: $name answers $status', async ({ body, previewUrl, status }) => {
    const text = previewUrl === undefined ? { body } : { body, preview_url: previewUrl };
    const reply = await h.agent.send({ to: CREATOR, type: 'text', text });
    expect(reply.status).toBe(status);
    if (status === 400) expect(codeOf(reply)).toBe(100);
  });
});

describe('media objects', () => {
  it.each(['image', 'video', 'document'])(
    'accepts a %s caption of 1024 characters and rejects 1025 (400, code 100)',
    async (type) => {
      const mediaId = await h.agent.uploadId();
      expect(
        (await h.agent.send({ to: CREATOR, type, [type]: { id: mediaId, caption: 'c'.repeat(1024) } }))
          .status,
      ).toBe(200);
      const reply = await h.agent.send({
        to: CREATOR,
        type,
        [type]: { id: mediaId, caption: 'c'.repeat(1025) },
      });
      expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
    },
  );

  it('sends the same media id repeatedly (2.7)', async () => {
    const mediaId = await h.agent.uploadId();
    for (let i = 0; i < 3; i++) {
      expect((await h.agent.send({ to: CREATOR, type: 'image', image: { id: mediaId } })).status).toBe(200);
    }
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['unknown', '123456789'],
  ])('rejects a %s media id with 400 code 131009', async (_name, id) => {
    const reply = await h.agent.send({ to: CREATOR, type: 'image', image: id === undefined ? {} : { id } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });

  it('rejects an expired media id (30 days after upload) with 400 code 131009', async () => {
    const mediaId = await h.agent.uploadId();
    await h.sim.control.advanceClock(30 * DAY_MS);
    const reply = await h.agent.send({ to: CREATOR, type: 'image', image: { id: mediaId } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });

  it("rejects another agent's media id with 400 code 131009", async () => {
    const other = await new AgentHttp(h.sim.url, 'other-token').uploadId();
    const reply = await h.agent.send({ to: CREATOR, type: 'image', image: { id: other } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });

  it('accepts media the human sent, forwarded by its id', async () => {
    const { id } = await h.sim.control.uploadHumanMedia(Buffer.from('jpg'), 'image/jpeg');
    await h.sim.control.human({ type: 'image', image: { id } });
    expect((await h.agent.send({ to: CREATOR, type: 'image', image: { id } })).status).toBe(200);
  });
});

describe('members of payload objects other than the one sent are still validated', () => {
  it.each([
    ['an over-long caption in an unused image object', { image: { caption: 'c'.repeat(1025) } }],
    [
      'an over-long caption in an unused document object',
      { document: { id: 'x', caption: 'c'.repeat(1025) } },
    ],
    ['an over-long body in an unused text object', { text: { body: 'x'.repeat(4097) } }],
    ['a non-object unused payload', { video: 'nope' }],
  ])('fails a media send for %s (400, code 100)', async (_name, extra) => {
    const mediaId = await h.agent.uploadId();
    const reply = await h.agent.send({ to: CREATOR, type: 'audio', audio: { id: mediaId }, ...extra });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it('fails a text send carrying an unused image object with an over-long caption', async () => {
    const reply = await h.agent.sendText('hi', { image: { id: 'x', caption: 'c'.repeat(1025) } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it('accepts unused payload objects whose members are within bounds', async () => {
    expect((await h.agent.sendText('hi', { image: { caption: 'ok' } })).status).toBe(200);
  });
});

describe('quoting (top-level context.message_id)', () => {
  it('accepts the id of an inbound message from an update', async () => {
    const { id } = await h.sim.control.humanText('question?');
    expect((await h.agent.sendText('answer', { context: { message_id: id } })).status).toBe(200);
  });

  it('accepts the id of an earlier send', async () => {
    const earlier = await h.agent.sendTextId('first');
    expect((await h.agent.sendText('second', { context: { message_id: earlier } })).status).toBe(200);
  });

  it('rejects an id the platform never issued with 400 code 131009', async () => {
    const reply = await h.agent.sendText('x', { context: { message_id: 'wamid.never-issued' } });
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });

  it("accepts an id from another agent's chat", async () => {
    const { id } = await h.sim.control.humanText('to the other agent', { agent: 'other' });
    expect((await h.agent.sendText('quoting across chats', { context: { message_id: id } })).status).toBe(
      200,
    );
  });

  it('rejects a context without message_id with 400', async () => {
    const reply = await h.agent.sendText('x', { context: {} });
    expect(reply.status).toBe(400);
  });
});

describe('rule 1: concurrent sends to the same recipient', () => {
  it('counts a send that arrives while another is still being answered', async () => {
    await h.sim.control.fault('messages', { kind: 'slow', delayMs: 300 });
    const first = h.agent.sendText('slow one');
    // The slow send is in flight once the simulator has counted it.
    await h.sim.control.waitFor(
      (c) => c.transcript(),
      (t) => t.counts.requests.messages === 1,
    );
    await h.agent.sendText('overlapping');
    await first;
    expect((await h.sim.control.transcript()).counts.overlappingSends).toBe(1);
  });

  it('counts no overlap for sends issued one after another', async () => {
    await h.agent.sendText('a');
    await h.agent.sendText('b');
    expect((await h.sim.control.transcript()).counts.overlappingSends).toBe(0);
  });
});

describe('rule 2: a recipient that is not user:<id> of the creator is rejected', () => {
  it.each([
    ['another human', 'user:9999', 403, 131005],
    ['an agent identifier', 'agent:demo', 400, 131009],
    ['a bare phone number', '+15551234567', 400, 131009],
    ['user:<id> naming an agent (not a human account)', 'user:other', 500, 2],
  ])('%s: %s answers %s', async (_name, to, status, code) => {
    const reply = await h.agent.send({ to, type: 'text', text: { body: 'x' } });
    expect([reply.status, codeOf(reply)]).toEqual([status, code]);
    expect((await h.sim.control.transcript()).sent).toEqual([]);
  });

  it('accepts user:<id> of the creator, as taken from a poll', async () => {
    await h.sim.control.humanText('hi');
    const creator = pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).messages[0].from;
    expect((await h.agent.send({ to: creator, type: 'text', text: { body: 'reply' } })).status).toBe(200);
  });
});
