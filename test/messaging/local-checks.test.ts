/**
 * With `validate` on, bad input is rejected before any request leaves: the simulator's request log
 * stays empty. With it off, the same input reaches the service, which rejects it.
 */
import { ApiError, MessagingClient, ValidationError } from '../../messaging';
import { CREATOR, rejectionOf, useSimulator } from './support';

type Case = [string, (c: MessagingClient) => Promise<unknown>];

const cases: Case[] = [
  ['an over-long text', (c) => c.sendText('x'.repeat(4097))],
  ['an over-long caption', (c) => c.sendImage('media-1', { caption: 'x'.repeat(1025) })],
  ['an over-long document caption', (c) => c.sendDocument('media-1', { caption: 'x'.repeat(1025) })],
  [
    'a reaction send',
    (c) => c.send({ type: 'reaction', reaction: { message_id: 'wamid.x', emoji: '👍' } } as never),
  ],
  ['a bare phone number as recipient', (c) => c.sendText('hi', { to: '+4915112345678' })],
  ['an agent as recipient', (c) => c.sendText('hi', { to: 'agent:demo' })],
  ['an empty user id as recipient', (c) => c.sendText('hi', { to: 'user:' })],
  ['a message without its payload object', (c) => c.send({ type: 'image' })],
  ['a caption on audio', (c) => c.send({ type: 'audio', audio: { id: 'media-1', caption: 'no' } as never })],
  ['a GIF upload', (c) => c.uploadMedia(Buffer.alloc(10), { mimeType: 'image/gif' })],
  ['an oversized image', (c) => c.uploadMedia(Buffer.alloc(5_000_001), { mimeType: 'image/png' })],
  ['an oversized static sticker', (c) => c.uploadMedia(Buffer.alloc(100_001), { mimeType: 'image/webp' })],
  ['a long-poll timeout over 25 s', (c) => c.getUpdates({ offset: 0, timeout: 26 })],
  ['a negative offset', (c) => c.getUpdates({ offset: -1 })],
  ['an empty message id to mark read', (c) => c.markRead('')],
];

describe('local checks', () => {
  const { sim, client } = useSimulator();

  it.each(cases)('rejects %s before any request leaves', async (_what, call) => {
    const err = await rejectionOf(call(client({ recipient: CREATOR })));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ code: 'AMS_VALIDATION' });
    expect(err.message).toMatch(/[Nn]othing was (sent|uploaded)|must be/);
    expect(await sim().control.log()).toEqual([]);
  });

  it('rejects media uploaded as one kind and sent as another, before the send leaves', async () => {
    const c = client({ recipient: CREATOR });
    const id = await c.uploadMedia(Buffer.from('%PDF-1.4'), {
      mimeType: 'application/pdf',
      filename: 'a.pdf',
    });
    await expect(c.sendImage(id)).rejects.toThrow(/uploaded as application\/pdf/);
    await expect(c.sendDocument(id, { filename: 'a.pdf' })).resolves.toMatchObject({ recipient: CREATOR });
    expect((await sim().control.log()).filter((e) => e.endpoint === 'messages')).toHaveLength(1);
  });

  it('accepts 4096 emoji: characters are counted as code points, like the service does', async () => {
    const c = client({ recipient: CREATOR });
    await expect(c.sendText('😀'.repeat(4096))).resolves.toMatchObject({ recipient: CREATOR });
  });

  it('lets the service judge when validate is off (400, code 100)', async () => {
    const c = client({ recipient: CREATOR, validate: false });
    const err = await rejectionOf(c.sendText('x'.repeat(4097)));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, errorCode: 100 });
    const reaction = await rejectionOf(
      c.send({ type: 'reaction', reaction: { message_id: 'w', emoji: '👍' } } as never),
    );
    expect(reaction).toMatchObject({ status: 400 });
    expect((await sim().control.log()).filter((e) => e.endpoint === 'messages')).toHaveLength(2);
  });
});
