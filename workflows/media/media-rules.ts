/**
 * The rules of media, pure: what each kind accepts (MIME types, sizes, captions, filenames), the
 * byte cap of what passes through workflow history, the typed failures, the checks made before
 * anything is uploaded or sent, what an inbound message carries, and base64 (workflow code has
 * no Buffer). `media.ts` wires them to the media activities and the outbox.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { SendOptions, SentMessage } from '../author/sending';
import type { InboundMessage } from '../../protocol';
import { MEDIA_RULES_TABLE } from '../../core/media-rules';

// ---------------------------------------------------------------------------------------------
// Limits and rules
// ---------------------------------------------------------------------------------------------

/**
 * Most bytes a media helper moves through workflow history: 256 KiB (262144 bytes), both for
 * sends from bytes and for downloads. Base64 makes that about 350 KB of history per call, well
 * under Temporal's 2 MB payload limit and its 512 KB warning. Larger media are refused with a
 * `MediaTooLarge` failure: upload or download them in your own activity and pass the media id.
 */
export const MAX_INLINE_MEDIA_BYTES = 256 * 1024;

/** The outbound media kinds (spec 4.1). */
export const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
/** An outbound media kind: the message `type` that references an uploaded media id. */
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** What a media kind accepts: MIME types (lower case, no parameters) and a size cap in bytes. */
export interface MediaKindRule {
  mimeTypes: readonly string[];
  /** Size cap in bytes (stickers: animated). */
  maxBytes: number;
  /** Size cap of a static sticker. */
  maxBytesStatic?: number;
}

/**
 * MIME types and size caps per kind. The spec does not show them; these are WIRE-CONVENTIONS'
 * (WhatsApp's published caps, decimal bytes): the one table in `core/media-rules.ts`, which
 * the messaging client's `DEFAULT_MEDIA_RULES` is too.
 */
export const MEDIA_RULES: Readonly<Record<MediaKind, MediaKindRule>> = MEDIA_RULES_TABLE;

/** Caption cap of image, video and document, in characters (Unicode code points; spec 4.1). */
export const MAX_CAPTION_CHARS = 1024;

/** Kinds that take a caption (spec 4.1). Only documents take a filename. */
const CAPTIONED: readonly MediaKind[] = ['image', 'video', 'document'];

/**
 * `ApplicationFailure.type` of every failure the media helpers throw themselves (all are
 * non-retryable). A send's own failures keep their `SendFailureType` (`AmbiguousSend`, ...).
 */
export const MEDIA_FAILURE_TYPES = {
  /** More bytes than {@link MAX_INLINE_MEDIA_BYTES} (or `maxBytes`), or a size that is not known. */
  tooLarge: 'MediaTooLarge',
  /** A local check failed (MIME type, caption, filename, empty bytes, options), or the service refused the upload. */
  invalid: 'MediaInvalid',
  /** `downloadMedia` was given a message that carries no media (text, reaction, ...). */
  notMedia: 'NotMediaMessage',
  /** The service does not know the media id (unknown or expired: media live 30 days). */
  unavailable: 'MediaUnavailable',
  /** A media request failed for good: still rate-limited after retries, token refused, no client, repeated errors. */
  requestFailed: 'MediaRequestFailed',
} as const;
/** One of {@link MEDIA_FAILURE_TYPES}. */
export type MediaFailureType = (typeof MEDIA_FAILURE_TYPES)[keyof typeof MEDIA_FAILURE_TYPES];

// ---------------------------------------------------------------------------------------------
// Types of the API
// ---------------------------------------------------------------------------------------------

/** Media given as bytes: uploaded through the `uploadMedia` activity, then sent by its new id. */
export interface MediaBytes {
  /** At most {@link MAX_INLINE_MEDIA_BYTES}. */
  bytes: Uint8Array;
  /** MIME type, e.g. `image/png`; it must be one the kind accepts ({@link MEDIA_RULES}). */
  mimeType: string;
  /** File name of the upload; a document sent from these bytes is named after it by default. */
  filename?: string;
}

/** Media already uploaded (by your own activity, or an earlier send): sent by id, nothing uploaded. */
export interface MediaRef {
  mediaId: string;
  /** When given, checked against the kind's MIME types before sending. */
  mimeType?: string;
}

/** What a media send takes: bytes, or the id of uploaded media. The service takes no links. */
export type MediaSource = MediaBytes | MediaRef;

/** Options of every media send. */
export interface MediaSendOptions extends SendOptions {
  /** Quote this message (an inbound message or a message id). */
  replyTo?: InboundMessage | string;
}

/** Options of an image or a video. */
export interface CaptionedMediaOptions extends MediaSendOptions {
  /** Up to {@link MAX_CAPTION_CHARS} characters. */
  caption?: string;
}

/** Options of a document. */
export interface DocumentOptions extends CaptionedMediaOptions {
  /** File name shown to the human (keep the extension). Default: the source's `filename`. */
  filename?: string;
}

/**
 * Options of {@link sendMedia}: the union of all kinds' options. A caption on audio or a
 * sticker, or a filename on anything but a document, fails with `MediaInvalid`.
 */
export type AnyMediaOptions = DocumentOptions;

/** A media message the outbox sent. */
export interface SentMedia extends SentMessage {
  /** The media id the message references: send it again with `{ mediaId }` (it lives 30 days). */
  mediaId: string;
  /** True when the helper uploaded the bytes for this send. */
  uploaded: boolean;
}

/** The media of an inbound message, as the message describes it. */
export interface InboundMediaInfo {
  kind: MediaKind;
  mediaId: string;
  mimeType?: string;
  sha256?: string;
  caption?: string;
  filename?: string;
  /** Audio recorded as a voice note. */
  voice?: boolean;
  /** An animated sticker. */
  animated?: boolean;
}

/** Options of {@link downloadMedia}. */
export interface DownloadOptions {
  /**
   * Refuse media larger than this many bytes (`MediaTooLarge`) before downloading. Default and
   * maximum {@link MAX_INLINE_MEDIA_BYTES}.
   */
  maxBytes?: number;
}

/** Media downloaded into the workflow. */
export interface DownloadedMedia {
  mediaId: string;
  /** The inbound message's kind, when downloaded from a message. */
  kind?: MediaKind;
  bytes: Uint8Array;
  /** From the service's metadata, else the message, else `application/octet-stream`. */
  mimeType: string;
  /** `bytes.byteLength`. */
  size: number;
  sha256?: string;
  caption?: string;
  filename?: string;
}

/** A typed, non-retryable media failure. */
export function fail(
  kind: keyof typeof MEDIA_FAILURE_TYPES,
  message: string,
  details?: Record<string, unknown>,
  cause?: unknown,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: MEDIA_FAILURE_TYPES[kind],
    message,
    nonRetryable: true,
    details: details === undefined ? [] : [details],
    ...(cause instanceof Error ? { cause } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Checks (pure)
// ---------------------------------------------------------------------------------------------

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
  if (isBytesSource(source)) {
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
  } else {
    if (typeof source.mediaId !== 'string' || source.mediaId === '') {
      throw fail(
        'invalid',
        `A ${kind} needs { bytes, mimeType } or a non-empty { mediaId } (the service takes no links); nothing was sent.`,
      );
    }
    if (source.mimeType !== undefined) checkMimeType(kind, source.mimeType);
  }
  const { caption, filename } = options;
  if (caption !== undefined) {
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
  if (filename !== undefined) {
    if (kind !== 'document') {
      throw fail('invalid', `Only documents take a filename, not a ${kind}; nothing was sent.`);
    }
    if (typeof filename !== 'string' || filename === '') {
      throw fail('invalid', 'The filename must be a non-empty string; nothing was sent.');
    }
  }
}

/** The media an inbound message carries (image, video, audio, document, sticker), else undefined. */
export function mediaOf(message: InboundMessage): InboundMediaInfo | undefined {
  const kind = message?.type as MediaKind;
  if (!(MEDIA_KINDS as readonly string[]).includes(kind)) return undefined;
  const media = message[kind];
  if (!media || typeof media.id !== 'string' || media.id === '') return undefined;
  return {
    kind,
    mediaId: media.id,
    ...(media.mime_type === undefined ? {} : { mimeType: media.mime_type }),
    ...(media.sha256 === undefined ? {} : { sha256: media.sha256 }),
    ...(media.caption === undefined ? {} : { caption: media.caption }),
    ...(media.filename === undefined ? {} : { filename: media.filename }),
    ...(media.voice === undefined ? {} : { voice: media.voice }),
    ...(media.animated === undefined ? {} : { animated: media.animated }),
  };
}

export { base64ToBytes, bytesToBase64 } from '../author/base64';
