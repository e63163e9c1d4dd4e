/**
 * The checks of media, pure: a send's kind, source, caption and filename before anything is
 * uploaded or sent, and a download's target and size. They throw the typed failures of
 * `media-rules.ts`; `media.ts` runs them.
 */
import type { InboundMessage } from '../../protocol/conversations';
import {
  fail,
  MAX_CAPTION_CHARS,
  MAX_INLINE_MEDIA_BYTES,
  MEDIA_KINDS,
  MEDIA_RULES,
  mediaOf,
  type AnyMediaOptions,
  type DownloadOptions,
  type InboundMediaInfo,
  type MediaBytes,
  type MediaKind,
  type MediaRef,
  type MediaSource,
} from './media-rules';

/** Kinds that take a caption (spec 4.1). Only documents take a filename. */
const CAPTIONED: readonly MediaKind[] = ['image', 'video', 'document'];

/** `Image/PNG; x=y` -> `image/png`. */
export function normalizeMimeType(mimeType: string): string {
  return mimeType.split(';')[0].trim().toLowerCase();
}

/** True when a WebP file is animated (VP8X header with the animation flag). */
function isAnimatedWebp(data: Uint8Array): boolean {
  if (data.length < 21) return false;
  const ascii = (from: number, to: number): string => String.fromCharCode(...data.subarray(from, to));
  return (
    ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP' && ascii(12, 16) === 'VP8X' && (data[20] & 0x02) !== 0
  );
}

export function isBytesSource(source: MediaSource): source is MediaBytes {
  return typeof source === 'object' && source !== null && 'bytes' in source;
}

function checkMimeType(kind: MediaKind, mimeType: unknown): void {
  if (typeof mimeType !== 'string' || mimeType.trim() === '') {
    throw fail('invalid', `A ${kind} needs its MIME type (mimeType); nothing was sent.`);
  }
  const mime = normalizeMimeType(mimeType);
  const accepted = MEDIA_RULES[kind].mimeTypes;
  if (!accepted.includes(mime)) {
    const others = MEDIA_KINDS.filter((k) => MEDIA_RULES[k].mimeTypes.includes(mime));
    throw fail(
      'invalid',
      `A ${kind} message does not accept ${mime} (it accepts ${accepted.join(', ')})` +
        (others.length ? `; send it as ${others.join(' or ')}` : '; convert the file') +
        '. Nothing was sent.',
      { kind, mimeType: mime },
    );
  }
}

/**
 * Every local check of a media send, made before anything is uploaded or sent: the kind, the
 * source (bytes within {@link MAX_INLINE_MEDIA_BYTES} and the kind's cap, a MIME type the kind
 * accepts, or a non-empty media id), the caption (image, video, document; at most
 * {@link MAX_CAPTION_CHARS}) and the filename (documents only). Throws a non-retryable
 * `ApplicationFailure` of type `MediaTooLarge` or `MediaInvalid`.
 */
export function checkMediaSend(kind: MediaKind, source: MediaSource, options: AnyMediaOptions = {}): void {
  if (!(MEDIA_KINDS as readonly string[]).includes(kind)) {
    throw fail(
      'invalid',
      `Unknown media kind "${String(kind)}" (one of ${MEDIA_KINDS.join(', ')}); nothing was sent.`,
    );
  }
  if (typeof source !== 'object' || source === null) {
    throw fail('invalid', `A ${kind} needs { bytes, mimeType } or { mediaId }; nothing was sent.`);
  }
  if (isBytesSource(source)) checkBytes(kind, source);
  else checkRef(kind, source);
  checkCaption(kind, options.caption);
  checkFilename(kind, options.filename);
}

/** Bytes: a non-empty Uint8Array within the history cap and the kind's, of a MIME type it accepts. */
function checkBytes(kind: MediaKind, source: MediaBytes): void {
  const { bytes } = source;
  if (!(bytes instanceof Uint8Array)) {
    throw fail('invalid', `The ${kind}'s bytes must be a Uint8Array; nothing was sent.`);
  }
  if (bytes.byteLength === 0) throw fail('invalid', `The ${kind} is empty (0 bytes); nothing was sent.`);
  if (bytes.byteLength > MAX_INLINE_MEDIA_BYTES) {
    throw fail(
      'tooLarge',
      `The ${kind} is ${bytes.byteLength} bytes; workflow code sends at most ${MAX_INLINE_MEDIA_BYTES} bytes ` +
        '(they are recorded in history). Upload it in your own activity (MessagingClient.uploadMedia) and ' +
        `send it with { mediaId }. Nothing was sent.`,
      { kind, size: bytes.byteLength, maxBytes: MAX_INLINE_MEDIA_BYTES },
    );
  }
  checkMimeType(kind, source.mimeType);
  const rule = MEDIA_RULES[kind];
  const cap =
    kind === 'sticker' && rule.maxBytesStatic !== undefined && !isAnimatedWebp(bytes)
      ? rule.maxBytesStatic
      : rule.maxBytes;
  if (bytes.byteLength > cap) {
    throw fail(
      'tooLarge',
      `The ${kind} is ${bytes.byteLength} bytes; the service takes at most ${cap}. Nothing was sent.`,
      { kind, size: bytes.byteLength, maxBytes: cap },
    );
  }
  if (source.filename !== undefined && (typeof source.filename !== 'string' || source.filename === '')) {
    throw fail('invalid', 'The filename must be a non-empty string; nothing was sent.');
  }
}

/** A media id: non-empty, and its MIME type, when given, one the kind accepts. */
function checkRef(kind: MediaKind, source: MediaRef): void {
  if (typeof source.mediaId !== 'string' || source.mediaId === '') {
    throw fail(
      'invalid',
      `A ${kind} needs { bytes, mimeType } or a non-empty { mediaId } (the service takes no links); nothing was sent.`,
    );
  }
  if (source.mimeType !== undefined) checkMimeType(kind, source.mimeType);
}

/** A caption: only on the kinds that take one, a string within {@link MAX_CAPTION_CHARS}. */
function checkCaption(kind: MediaKind, caption: unknown): void {
  if (caption === undefined) return;
  if (!CAPTIONED.includes(kind)) {
    throw fail(
      'invalid',
      `A ${kind} message takes no caption (only ${CAPTIONED.join(', ')}); nothing was sent.`,
    );
  }
  if (typeof caption !== 'string') throw fail('invalid', 'The caption must be a string; nothing was sent.');
  const chars = [...caption].length;
  if (chars > MAX_CAPTION_CHARS) {
    throw fail(
      'invalid',
      `The ${kind} caption is ${chars} characters; the service takes at most ${MAX_CAPTION_CHARS}. Nothing was sent.`,
      { kind, captionChars: chars },
    );
  }
}

/** A filename: documents only, a non-empty string. */
function checkFilename(kind: MediaKind, filename: unknown): void {
  if (filename === undefined) return;
  if (kind !== 'document') {
    throw fail('invalid', `Only documents take a filename, not a ${kind}; nothing was sent.`);
  }
  if (typeof filename !== 'string' || filename === '') {
    throw fail('invalid', 'The filename must be a non-empty string; nothing was sent.');
  }
}

// ---------------------------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------------------------

/** What a download fetches: the media id, the inbound media when it came from a message, and the cap. */
export interface DownloadTarget {
  mediaId: string;
  inbound?: InboundMediaInfo;
  maxBytes: number;
}

/** The target of `downloadMedia(source, options)`, checked; throws `NotMediaMessage` or `MediaInvalid`. */
export function downloadTarget(source: InboundMessage | MediaRef, options: DownloadOptions): DownloadTarget {
  const byId = typeof source === 'object' && source !== null && 'mediaId' in source;
  const inbound = byId ? undefined : mediaOf(source);
  if (!byId && !inbound) {
    const type: unknown = (source as InboundMessage | undefined)?.type;
    throw fail(
      'notMedia',
      `This message carries no media (type ${String(type)}); only image, video, audio, document and sticker messages do.`,
      { type },
    );
  }
  const mediaId = byId ? source.mediaId : inbound?.mediaId;
  if (typeof mediaId !== 'string' || mediaId === '') {
    throw fail('invalid', 'downloadMedia needs an inbound media message or a non-empty { mediaId }.');
  }
  const maxBytes = options.maxBytes ?? MAX_INLINE_MEDIA_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_INLINE_MEDIA_BYTES) {
    throw fail(
      'invalid',
      `maxBytes must be a whole number from 1 to ${MAX_INLINE_MEDIA_BYTES} (bytes in workflow history are ` +
        `capped); got ${String(maxBytes)}. Download larger media in your own activity.`,
    );
  }
  return { mediaId, ...(inbound ? { inbound } : {}), maxBytes };
}

/** `file_size` of media metadata as a whole number of bytes, when it is one. */
export function metadataFileSize(metadata: Record<string, unknown>): number | undefined {
  const raw = metadata.file_size;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Throws `MediaTooLarge` unless the metadata proves the media fits in the target's cap (before a
 * byte moves).
 */
export function checkDownloadSize(target: DownloadTarget, metadata: Record<string, unknown>): void {
  const { mediaId, maxBytes, inbound } = target;
  const size = metadataFileSize(metadata);
  if (size !== undefined && size <= maxBytes) return;
  const metaMime = typeof metadata.mime_type === 'string' ? metadata.mime_type : undefined;
  throw fail(
    'tooLarge',
    (size === undefined
      ? `The service shows no size for media ${mediaId}, so it cannot be proven to fit in ${maxBytes} bytes.`
      : `Media ${mediaId} is ${size} bytes; downloadMedia moves at most ${maxBytes} into workflow history.`) +
      ' Download it in your own activity by its id (MessagingClient.downloadMedia(mediaId)).',
    { mediaId, size, maxBytes, mimeType: metaMime ?? inbound?.mimeType },
  );
}
