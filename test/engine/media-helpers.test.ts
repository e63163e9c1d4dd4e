/**
 * Media helpers (workflows/media/media.ts): their pure checks, and the whole path on the real stack
 * (simulator, dev server, worker process): the human's media downloaded through activities and
 * sent back from bytes, byte for byte; refusals (too large, wrong kind, not media) before
 * anything is uploaded or sent; large inbound media forwarded by id without a download.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { DEFAULT_MEDIA_RULES } from '../../messaging/validation';
import type { InboundMessage } from '../../protocol';
import {
  MAX_CAPTION_CHARS,
  MAX_INLINE_MEDIA_BYTES,
  MEDIA_RULES,
  base64ToBytes,
  bytesToBase64,
  checkMediaSend,
  mediaOf,
} from '../../workflows/media/media';
import { bundle, waitFor } from '../support/temporal';
import { Engine } from './support';

/** The failure type `fn` throws (undefined when it does not throw). */
function failureType(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof ApplicationFailure) {
      expect(err.nonRetryable).toBe(true);
      return err.type ?? undefined;
    }
    throw err;
  }
}

/** A sent message's body, as the transcript shows it. */
interface SentBody {
  type: string;
  context?: { message_id: string };
  text?: { body: string };
  image?: { id: string; caption?: string };
  document?: { id: string; caption?: string; filename?: string };
}

const png = (size: number): Uint8Array => {
  const bytes = new Uint8Array(randomBytes(size));
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
};

describe('media helpers: checks', () => {
  it('keeps the MIME types and size caps of the messaging client', () => {
    expect(MEDIA_RULES).toEqual(DEFAULT_MEDIA_RULES);
  });

  it('round-trips base64 like Buffer does', () => {
    for (const size of [0, 1, 2, 3, 4, 5, 1000, 70_001]) {
      const bytes = new Uint8Array(randomBytes(size));
      const b64 = bytesToBase64(bytes);
      expect(b64).toBe(Buffer.from(bytes).toString('base64'));
      expect(Buffer.from(base64ToBytes(b64)).equals(Buffer.from(bytes))).toBe(true);
      expect(
        Buffer.from(base64ToBytes(Buffer.from(bytes).toString('base64url'))).equals(Buffer.from(bytes)),
      ).toBe(true);
    }
  });

  it('refuses bytes over the inline limit with MediaTooLarge, and wrong inputs with MediaInvalid', () => {
    const ok = { bytes: png(100), mimeType: 'image/png' };
    expect(
      failureType(() => checkMediaSend('image', ok, { caption: 'hi', replyTo: 'wamid.x' })),
    ).toBeUndefined();
    expect(failureType(() => checkMediaSend('image', { ...ok, mimeType: 'IMAGE/PNG; q=1' }))).toBeUndefined();
    expect(
      failureType(() => checkMediaSend('image', { ...ok, bytes: png(MAX_INLINE_MEDIA_BYTES) })),
    ).toBeUndefined();
    expect(
      failureType(() => checkMediaSend('image', { ...ok, bytes: png(MAX_INLINE_MEDIA_BYTES + 1) })),
    ).toBe('MediaTooLarge');
    // A static sticker's own cap (100 KB) is below the inline limit.
    expect(
      failureType(() =>
        checkMediaSend('sticker', { bytes: new Uint8Array(100_001), mimeType: 'image/webp' }),
      ),
    ).toBe('MediaTooLarge');
    const invalid: [string, () => void][] = [
      ['png as a document', () => checkMediaSend('document', ok)],
      ['pdf as an image', () => checkMediaSend('image', { ...ok, mimeType: 'application/pdf' })],
      ['no MIME type', () => checkMediaSend('image', { bytes: ok.bytes } as never)],
      ['empty bytes', () => checkMediaSend('image', { ...ok, bytes: new Uint8Array(0) })],
      ['bytes not a Uint8Array', () => checkMediaSend('image', { ...ok, bytes: [1, 2] as never })],
      ['a link', () => checkMediaSend('image', { link: 'https://example.com/a.png' } as never)],
      ['empty media id', () => checkMediaSend('image', { mediaId: '' })],
      [
        'media id of the wrong MIME type',
        () => checkMediaSend('audio', { mediaId: 'm1', mimeType: 'image/png' }),
      ],
      ['caption on audio', () => checkMediaSend('audio', { mediaId: 'm1' }, { caption: 'no' })],
      ['caption on a sticker', () => checkMediaSend('sticker', { mediaId: 'm1' }, { caption: 'no' })],
      ['filename on an image', () => checkMediaSend('image', { mediaId: 'm1' }, { filename: 'a.png' })],
      ['empty filename', () => checkMediaSend('document', { mediaId: 'm1' }, { filename: '' })],
      [
        'over-long caption',
        () => checkMediaSend('video', { mediaId: 'm1' }, { caption: '😀'.repeat(MAX_CAPTION_CHARS + 1) }),
      ],
      ['unknown kind', () => checkMediaSend('gif' as never, { mediaId: 'm1' })],
    ];
    for (const [what, fn] of invalid) expect([what, failureType(fn)]).toEqual([what, 'MediaInvalid']);
    // Captions count code points: 1024 emoji fit.
    expect(
      failureType(() =>
        checkMediaSend('video', { mediaId: 'm1' }, { caption: '😀'.repeat(MAX_CAPTION_CHARS) }),
      ),
    ).toBeUndefined();
    expect(
      failureType(() =>
        checkMediaSend('document', { mediaId: 'm1', mimeType: 'application/pdf' }, { filename: 'a.pdf' }),
      ),
    ).toBeUndefined();
  });

  it('reads the media of an inbound message', () => {
    const base = { from: 'user:1', id: 'wamid.1', timestamp: '1' };
    const doc: InboundMessage = {
      ...base,
      type: 'document',
      document: { id: 'm9', mime_type: 'text/plain', sha256: 'ab', filename: 'a.txt' },
    };
    expect(mediaOf(doc)).toEqual({
      kind: 'document',
      mediaId: 'm9',
      mimeType: 'text/plain',
      sha256: 'ab',
      filename: 'a.txt',
    });
    expect(mediaOf({ ...base, type: 'text', text: { body: 'hi' } })).toBeUndefined();
    expect(
      mediaOf({ ...base, type: 'reaction', reaction: { message_id: 'x', emoji: '👍' } }),
    ).toBeUndefined();
  });
});

describe('media helpers on the engine', () => {
  let bundlePath: string;
  let engine: Engine | undefined;

  beforeAll(async () => {
    const { code } = await bundle(require.resolve('./media-workflows'));
    bundlePath = join(mkdtempSync(join(tmpdir(), 'amsflow-media-bundle-')), 'workflows.js');
    writeFileSync(bundlePath, code);
  });

  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  const start = async (): Promise<Engine> => {
    engine = await new Engine(bundlePath, { windowMs: 2000 }).start();
    await engine.startWorker();
    return engine;
  };

  /** The bytes the simulator holds for a media id. */
  const mediaBytes = async (e: Engine, id: string): Promise<Buffer> => {
    const res = await fetch(e.sim.control.mediaUrl(id));
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it("downloads the human's image and document and sends the same bytes back", async () => {
    const e = await start();
    const control = e.sim.control;
    const image = png(3000);
    const { id: imageId } = await control.uploadHumanMedia({
      bytes: image,
      mimeType: 'image/png',
      agent: e.agentKey,
    });
    const imageMsg = await control.human({
      agent: e.agentKey,
      type: 'image',
      image: { id: imageId, caption: 'look' },
    });
    const text = new TextEncoder().encode('a small document\n'.repeat(100));
    const { id: docId } = await control.uploadHumanMedia({
      bytes: text,
      mimeType: 'text/plain',
      filename: 'notes.txt',
      agent: e.agentKey,
    });
    const docMsg = await control.human({ agent: e.agentKey, type: 'document', document: { id: docId } });

    const { sent } = await waitFor(
      'both media replies',
      async () => {
        const t = await e.transcript();
        return t.sent.length >= 2 && t;
      },
      { timeoutMs: 30_000 },
    );
    const [imageReply, docReply] = sent.map((s) => s.body as unknown as SentBody);
    expect(imageReply).toMatchObject({
      type: 'image',
      image: { caption: `echo ${image.length} bytes` },
      context: { message_id: imageMsg.id },
    });
    expect(docReply).toMatchObject({
      type: 'document',
      document: { caption: `echo ${text.length} bytes`, filename: 'echo-notes.txt' },
      context: { message_id: docMsg.id },
    });
    // Sent from bytes: newly uploaded media, not the human's ids, holding the same bytes.
    expect(imageReply.image!.id).not.toBe(imageId);
    expect(docReply.document!.id).not.toBe(docId);
    expect((await mediaBytes(e, imageReply.image!.id)).equals(Buffer.from(image))).toBe(true);
    expect((await mediaBytes(e, docReply.document!.id)).equals(Buffer.from(text))).toBe(true);
    const conversation = await control.conversation(e.agentKey);
    const out = conversation.entries.filter((entry) => entry.direction === 'out');
    expect(out.map((entry) => (entry.payload as { mime_type?: string }).mime_type)).toEqual([
      'image/png',
      'text/plain',
    ]);
    // Per download: the metadata (size check) and the download's own metadata read; per send: one upload.
    const { requests } = (await e.transcript()).counts;
    expect(requests['media.get']).toBe(4);
    expect(requests['media.download']).toBe(2);
    expect(requests['media.upload']).toBe(2);
  });

  it('waits out a 429 and retries a dropped download and a failed upload', async () => {
    const e = await start();
    const control = e.sim.control;
    const agent = e.agentKey;
    await control.fault('media.get', { kind: 'rate_limit', retryAfter: 1 }, { agent });
    await control.fault('media.download', { kind: 'drop_after' }, { agent });
    // Stored, then answered 500: the retry uploads again (a harmless unused copy stays behind).
    await control.fault('media.upload', { kind: 'server_error_after_accept' }, { agent });
    const image = png(2000);
    const { id: imageId } = await control.uploadHumanMedia({ bytes: image, mimeType: 'image/jpeg', agent });
    const started = Date.now();
    await control.human({ agent, type: 'image', image: { id: imageId } });
    const { sent, counts } = await waitFor(
      'the media reply',
      async () => {
        const t = await e.transcript();
        return t.sent.length >= 1 && t;
      },
      { timeoutMs: 30_000 },
    );
    // Retry-After: 1 s was honoured by a durable timer before the metadata was read again.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const body = sent[0].body as unknown as SentBody;
    expect(body.type).toBe('image');
    expect((await mediaBytes(e, body.image!.id)).equals(Buffer.from(image))).toBe(true);
    expect(counts.status429['media.get']).toBe(1);
    expect(counts.requests['media.download']).toBe(2);
    expect(counts.requests['media.upload']).toBe(2);
    expect(sent).toHaveLength(1);
  });

  it('refuses too-large, wrong-kind and non-media requests before anything is uploaded or sent', async () => {
    const e = await start();
    const control = e.sim.control;
    const bigId = await e.human('big');
    const wrongId = await e.human('image-as-document');
    const textId = await e.human('notmedia');
    const large = new Uint8Array(randomBytes(MAX_INLINE_MEDIA_BYTES + 1000));
    const { id: largeId } = await control.uploadHumanMedia({
      bytes: large,
      mimeType: 'application/pdf',
      filename: 'large.pdf',
      agent: e.agentKey,
    });
    const largeMsg = await control.human({ agent: e.agentKey, type: 'document', document: { id: largeId } });

    const { sent, counts } = await waitFor(
      'four answers',
      async () => {
        const t = await e.transcript();
        return t.sent.length >= 4 && t;
      },
      { timeoutMs: 30_000 },
    );
    const bodies = sent.map((s) => s.body as unknown as SentBody);
    expect(bodies.slice(0, 3)).toEqual([
      expect.objectContaining({
        type: 'text',
        text: { body: 'refused MediaTooLarge' },
        context: { message_id: bigId },
      }),
      expect.objectContaining({
        type: 'text',
        text: { body: 'refused MediaInvalid' },
        context: { message_id: wrongId },
      }),
      expect.objectContaining({
        type: 'text',
        text: { body: 'refused NotMediaMessage' },
        context: { message_id: textId },
      }),
    ]);
    // Over the limit: refused after the metadata, never downloaded, forwarded by its id instead.
    expect(bodies[3]).toMatchObject({
      type: 'document',
      document: { id: largeId, caption: 'forwarded by id' },
      context: { message_id: largeMsg.id },
    });
    expect(counts.requests['media.upload']).toBe(0);
    expect(counts.requests['media.download']).toBe(0);
    expect(counts.requests['media.get']).toBe(1);
    expect(sent).toHaveLength(4);
  });
});
