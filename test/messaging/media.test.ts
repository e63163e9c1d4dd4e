/**
 * Media endpoints (spec 4.4, WIRE-CONVENTIONS), against the simulator.
 */
import { createHash } from 'node:crypto';
import { CREATOR, rejectionOf, useSimulator } from './support';
import { UnexpectedResponseError } from '../../messaging';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('media', () => {
  const { sim, client } = useSimulator();

  it('uploads, describes, sends, downloads (checking sha256) and deletes a file', async () => {
    const c = client({ recipient: CREATOR });
    const id = await c.uploadMedia(PNG, { mimeType: 'image/png', filename: 'dot.png' });
    const meta = await c.getMedia(id);
    expect(meta).toMatchObject({ id, mime_type: 'image/png' });
    expect(Number(meta.file_size)).toBe(PNG.length);

    const sent = await c.sendImage(id, { caption: 'a dot' });
    const transcript = await sim().control.transcript();
    expect(transcript.sent[0]).toMatchObject({
      id: sent.messageId,
      type: 'image',
      body: { image: { id, caption: 'a dot' } },
    });

    const media = await c.downloadMedia(id);
    expect(media.data.equals(PNG)).toBe(true);
    expect(media.sha256).toBe(createHash('sha256').update(PNG).digest('hex'));
    expect(media.mimeType).toBe('image/png');

    await expect(c.deleteMedia(id)).resolves.toBe(true);
    await expect(c.getMedia(id)).rejects.toMatchObject({ status: 400, errorCode: 131009 });
  });

  it('downloads media the human sent, by the id in the inbound message', async () => {
    const c = client();
    const { id: mediaId } = await sim().control.uploadHumanMedia(PNG, 'image/png', 'photo.png');
    const { offset } = await sim().control.human({ type: 'image', image: { id: mediaId, caption: 'look' } });
    const page = await c.getUpdates({ offset, timeout: 0 });
    const image = page?.entry[0].changes[0].value.messages?.[0].image;
    expect(image).toMatchObject({ id: mediaId, mime_type: 'image/png', caption: 'look' });
    const media = await c.downloadMedia(image!.id, { sha256: image!.sha256 });
    expect(media.data.equals(PNG)).toBe(true);
  });

  it('refuses a download whose bytes do not match the expected sha256', async () => {
    const c = client();
    const id = await c.uploadMedia(PNG, { mimeType: 'image/png' });
    const err = await rejectionOf(c.downloadMedia(id, { sha256: 'ab'.repeat(32) }));
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.message).toMatch(/SHA-256/);
  });

  it('downloads by media url with the same bearer header', async () => {
    const c = client();
    const id = await c.uploadMedia(PNG, { mimeType: 'image/png' });
    const { url } = await c.getMedia(id);
    const media = await c.downloadMedia(url);
    expect(media.data.equals(PNG)).toBe(true);
    expect(media.metadata).toBeUndefined();
  });

  it('sends documents with a filename, and audio and stickers by id only', async () => {
    const c = client({ recipient: CREATOR });
    const doc = await c.uploadMedia(Buffer.from('hello'), { mimeType: 'text/plain', filename: 'hello.txt' });
    const audio = await c.uploadMedia(Buffer.from('ID3'), { mimeType: 'audio/mpeg', filename: 'a.mp3' });
    const sticker = await c.uploadMedia(Buffer.from('RIFF0000WEBPVP8 '), { mimeType: 'image/webp' });
    await c.sendDocument(doc, { filename: 'hello.txt', caption: 'read me' });
    await c.sendAudio(audio);
    await c.sendSticker(sticker);
    const bodies = (await sim().control.transcript()).sent.map((s) => s.body);
    expect(bodies).toEqual([
      expect.objectContaining({
        type: 'document',
        document: { id: doc, filename: 'hello.txt', caption: 'read me' },
      }),
      expect.objectContaining({ type: 'audio', audio: { id: audio } }),
      expect.objectContaining({ type: 'sticker', sticker: { id: sticker } }),
    ]);
  });

  it('sends a video with a caption and a text with a link preview', async () => {
    const c = client({ recipient: CREATOR });
    const video = await c.uploadMedia(Buffer.from('ftyp'), { mimeType: 'video/mp4' });
    await c.sendVideo(video, { caption: 'clip' });
    await c.sendText('see https://example.com', { previewUrl: true });
    const bodies = (await sim().control.transcript()).sent.map((s) => s.body);
    expect(bodies[0]).toMatchObject({ video: { id: video, caption: 'clip' } });
    expect(bodies[1]).toMatchObject({ text: { body: 'see https://example.com', preview_url: true } });
  });
});
