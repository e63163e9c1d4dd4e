/** WIRE-CONVENTIONS.md: one test per row of its table. */
import { createHash } from 'node:crypto';
import { MESSAGING_PRODUCT, OBJECT } from '../../simulator';
import { CREATOR, codeOf, pageOf, startHarness, type Harness, type Json } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ receipts: { deliveredAfterMs: 0 } });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

async function lastInbound(): Promise<Json> {
  const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
  return page.messages[page.messages.length - 1];
}

it('media reference in a send: { type, <type>: { id, caption } }, document adds filename, audio and sticker only id', async () => {
  const id = await h.agent.uploadId();
  for (const body of [
    { type: 'image', image: { id, caption: 'c' } },
    { type: 'video', video: { id, caption: 'c' } },
    { type: 'document', document: { id, caption: 'c', filename: 'f.pdf' } },
    { type: 'audio', audio: { id } },
    { type: 'sticker', sticker: { id } },
  ]) {
    expect((await h.agent.send({ to: CREATOR, ...body })).status).toBe(200);
  }
});

it('quoting in a send: top-level context.message_id', async () => {
  const { id } = await h.sim.control.humanText('q');
  expect((await h.agent.sendText('a', { context: { message_id: id } })).status).toBe(200);
  expect((await h.sim.control.conversation()).entries.at(-1)?.context).toEqual({ id, from: CREATOR });
});

it('inbound context: { from, id } with from = author of the quoted message; other members pass through', async () => {
  const own = await h.agent.sendTextId('agent says');
  await h.sim.control.human({
    type: 'text',
    text: { body: 'replying' },
    context: { id: own, forwarded: false },
  });
  expect((await lastInbound()).context).toEqual({ from: 'agent:demo', id: own, forwarded: false });
  const { id: humanMessage } = await h.sim.control.humanText('first');
  await h.sim.control.humanText('quoting myself', { quote: humanMessage });
  expect((await lastInbound()).context).toEqual({ from: CREATOR, id: humanMessage });
});

it('inbound media objects: { id, mime_type, sha256, caption?, filename? }; audio voice; sticker animated', async () => {
  const bytes = Buffer.from('pdf bytes');
  const { id } = await h.sim.control.uploadHumanMedia(bytes, 'application/pdf', 'r.pdf');
  await h.sim.control.human({ type: 'document', document: { id, caption: 'report' } });
  expect((await lastInbound()).document).toEqual({
    id,
    mime_type: 'application/pdf',
    sha256: createHash('sha256').update(bytes).digest('hex'),
    caption: 'report',
    filename: 'r.pdf',
  });
  const voice = await h.sim.control.uploadHumanMedia(Buffer.from('ogg'), 'audio/ogg');
  await h.sim.control.human({ type: 'audio', audio: { id: voice.id, voice: true } });
  expect((await lastInbound()).audio.voice).toBe(true);
  const sticker = await h.sim.control.uploadHumanMedia(Buffer.from('webp'), 'image/webp');
  await h.sim.control.human({ type: 'sticker', sticker: { id: sticker.id } });
  expect((await lastInbound()).sticker.animated).toBe(false);
});

it('inbound reaction: { message_id, emoji }; an empty emoji (removal) passes as given', async () => {
  const own = await h.agent.sendTextId('x');
  await h.sim.control.human({ type: 'reaction', reaction: { message_id: own, emoji: '❤️' } });
  expect((await lastInbound()).reaction).toEqual({ message_id: own, emoji: '❤️' });
  await h.sim.control.human({ type: 'reaction', reaction: { message_id: own, emoji: '' } });
  expect((await lastInbound()).reaction).toEqual({ message_id: own, emoji: '' });
});

it('receipt: { id, status, timestamp, recipient_id } with status sent | delivered | read', async () => {
  const own = await h.agent.sendTextId('x');
  await h.sim.control.read(own);
  const { statuses } = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
  expect(statuses).toEqual(
    ['sent', 'delivered', 'read'].map((status) => ({
      id: own,
      status,
      timestamp: expect.stringMatching(/^\d+$/),
      recipient_id: CREATOR,
    })),
  );
});

it('mark read: { messaging_product, status: read, message_id }', async () => {
  const { id } = await h.sim.control.humanText('x');
  const reply = await h.agent.request('POST', '/statuses', {
    json: { messaging_product: 'agent_messaging', status: 'read', message_id: id },
  });
  expect(reply.json).toEqual({ success: true });
});

it('typing indicator: the mark-read body plus typing_indicator { type: text }, counted on its own', async () => {
  const { id } = await h.sim.control.humanText('x');
  const reply = await h.agent.request('POST', '/statuses', {
    json: {
      messaging_product: 'agent_messaging',
      status: 'read',
      message_id: id,
      typing_indicator: { type: 'text' },
    },
  });
  expect(reply.json).toEqual({ success: true });
  expect((await h.sim.control.transcript()).counts.requests).toMatchObject({ typing: 1, statuses: 0 });
});

it('media upload: multipart/form-data with file, type and messaging_product; answers { id }', async () => {
  const reply = await h.agent.upload(Buffer.from('x'), 'image/png', 'x.png');
  expect(reply.json).toEqual({ id: expect.any(String) });
});

it('media metadata: { messaging_product, id, url, mime_type, sha256, file_size }; url fetched with the bearer header', async () => {
  const id = await h.agent.uploadId(Buffer.from('12345'), 'image/png');
  const meta = (await h.agent.request('GET', `/media/${id}`)).json;
  expect(Object.keys(meta).sort()).toEqual([
    'file_size',
    'id',
    'messaging_product',
    'mime_type',
    'sha256',
    'url',
  ]);
  expect(Number(meta.file_size)).toBe(5);
  expect((await h.agent.request('GET', meta.url)).text).toBe('12345');
  expect((await h.agent.request('GET', meta.url, { token: null })).status).toBe(401);
});

it('media delete: { success: true }', async () => {
  const id = await h.agent.uploadId();
  expect((await h.agent.request('DELETE', `/media/${id}`)).json).toEqual({ success: true });
});

it('error object: { error: { code: number, message?, type?, error_data?, fbtrace_id? } }', async () => {
  const reply = await h.agent.sendText('x'.repeat(4097));
  expect(reply.json).toEqual({
    error: {
      code: 100,
      message: expect.any(String),
      type: expect.any(String),
      fbtrace_id: expect.any(String),
    },
  });
});

it('bad or missing token: HTTP 401, error.code 190', async () => {
  const bad = await h.agent.poll({ offset: 0, timeout: 0 }, { token: 'bad' });
  expect([bad.status, codeOf(bad)]).toEqual([401, 190]);
  const missing = await h.agent.poll({ offset: 0, timeout: 0 }, { token: null });
  expect([missing.status, codeOf(missing)]).toEqual([401, 190]);
});

it('send result messages[]: { id } and optionally message_status', async () => {
  const reply = await h.agent.sendText('x');
  expect(reply.json.messages).toEqual([{ id: expect.any(String), message_status: expect.any(String) }]);
});

it('GET /updates?offset=0&timeout=0: 200 with the creator in contacts, no traffic, next_offset 0', async () => {
  const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
  expect(page).toMatchObject({ contacts: [{ wa_id: CREATOR }], messages: [], statuses: [], nextOffset: 0 });
});

it('next_offset: the sequence number after the last entry returned', async () => {
  await h.sim.control.humanText('a');
  const last = await h.sim.control.humanText('b');
  expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).nextOffset).toBe(last.offset + 1);
});

it('constants object and messaging_product are the same everywhere they appear', async () => {
  const page = (await h.agent.poll({ offset: 0, timeout: 0 })).json;
  const send = (await h.agent.sendText('x')).json;
  const id = await h.agent.uploadId();
  const meta = (await h.agent.request('GET', `/media/${id}`)).json;
  expect(page.object).toBe(OBJECT);
  expect([
    page.entry[0].changes[0].value.messaging_product,
    send.messaging_product,
    meta.messaging_product,
  ]).toEqual([MESSAGING_PRODUCT, MESSAGING_PRODUCT, MESSAGING_PRODUCT]);
});
