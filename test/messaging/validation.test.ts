import { ValidationError } from '../../messaging';
import {
  DEFAULT_MEDIA_RULES,
  checkOutgoing,
  checkRecipient,
  checkUpload,
  characterCount,
  isAnimatedWebp,
  resolveMediaRules,
} from '../../messaging/validation';

const rules = resolveMediaRules();

function webp(animated: boolean, size: number): Uint8Array {
  const data = new Uint8Array(size);
  data.set(Buffer.from('RIFF'), 0);
  data.set(Buffer.from('WEBP'), 8);
  data.set(Buffer.from('VP8X'), 12);
  data[20] = animated ? 0x02 : 0;
  return data;
}

describe('local validation', () => {
  it.each([
    ['a bare phone number', '+4915112345678'],
    ['an agent identifier', 'agent:demo'],
    ['an empty id', 'user:'],
    ['whitespace', 'user:10 01'],
    ['a non-string', 42],
  ])('rejects %s as a recipient', (_what, to) => {
    expect(() => checkRecipient(to)).toThrow(ValidationError);
  });

  it('accepts any opaque user: identifier without interpreting it', () => {
    expect(() => checkRecipient('user:Zx/9?#%41:ü')).not.toThrow();
  });

  it('counts characters as code points, so 4096 emoji fit in a text', () => {
    const body = '😀'.repeat(4096);
    expect(characterCount(body)).toBe(4096);
    expect(() => checkOutgoing({ type: 'text', text: { body } })).not.toThrow();
    expect(() => checkOutgoing({ type: 'text', text: { body: `${body}x` } })).toThrow(/4097 characters/);
  });

  it.each([
    ['a reaction', { type: 'reaction', reaction: { message_id: 'w', emoji: '👍' } }, /receive-only/],
    ['a missing payload object', { type: 'image' }, /needs a `image` object/],
    [
      'an over-long caption',
      { type: 'image', image: { id: 'm', caption: 'x'.repeat(1025) } },
      /1025 characters/,
    ],
    ['a caption on audio', { type: 'audio', audio: { id: 'm', caption: 'hi' } }, /takes no caption/],
    ['a filename on an image', { type: 'image', image: { id: 'm', filename: 'a.png' } }, /Only documents/],
    [
      'an over-long caption in an unused payload object',
      { type: 'text', text: { body: 'hi' }, video: { id: 'm', caption: 'x'.repeat(1025) } },
      /1025 characters/,
    ],
    ['a media payload without id', { type: 'sticker', sticker: {} }, /media id/],
    ['an empty quoted id', { type: 'text', text: { body: 'x' }, context: { message_id: '' } }, /quoted/],
  ])('rejects %s', (_what, message, pattern) => {
    expect(() => checkOutgoing(message)).toThrow(pattern);
  });

  it('lets a payload of an unknown type through', () => {
    expect(() => checkOutgoing({ type: 'location', location: { latitude: 1 } })).not.toThrow();
  });

  it.each([
    ['image/gif', 10, /not accepted/],
    ['image/jpeg', 5_000_001, /5 MB/],
    ['video/mp4', 16_000_001, /16 MB/],
    ['application/pdf', 100_000_001, /100 MB/],
  ])('rejects an upload of %s with %i bytes', (mime, size, pattern) => {
    expect(() => checkUpload(new Uint8Array(size), mime, rules)).toThrow(pattern);
  });

  it('caps static stickers at 100 KB and animated ones at 500 KB', () => {
    expect(isAnimatedWebp(webp(true, 30))).toBe(true);
    expect(isAnimatedWebp(webp(false, 30))).toBe(false);
    expect(() => checkUpload(webp(false, 100_001), 'image/webp', rules)).toThrow(/100 KB/);
    expect(() => checkUpload(webp(true, 400_000), 'image/webp', rules)).not.toThrow();
    expect(() => checkUpload(webp(true, 500_001), 'image/webp', rules)).toThrow(/500 KB/);
  });

  it('normalises MIME types and accepts overrides per kind', () => {
    expect(checkUpload(new Uint8Array(10), 'Audio/OGG; codecs=opus', rules)).toEqual(['audio']);
    const custom = resolveMediaRules({ image: { mimeTypes: ['image/gif'], maxBytes: 20 } });
    expect(checkUpload(new Uint8Array(20), 'image/gif', custom)).toEqual(['image']);
    expect(() => checkUpload(new Uint8Array(21), 'image/gif', custom)).toThrow(ValidationError);
    expect(DEFAULT_MEDIA_RULES.image.maxBytes).toBe(5_000_000);
  });
});
