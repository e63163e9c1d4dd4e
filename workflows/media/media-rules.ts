/**
 * The rules of media, pure: what each kind accepts (MIME types, sizes, captions, filenames), the
 * byte cap of what passes through workflow history, the typed failures, what an inbound message
 * carries, and base64 (workflow code has no Buffer). The checks made before anything is uploaded
 * or sent are `media-checks.ts`; `media.ts` wires both to the media activities and the outbox.
 */
import { exponentialBackoffMs, rateLimitBackoffMs, type BackoffSettings } from '../../core/backoff';
import { ApplicationFailure } from '@temporalio/workflow';
import type { SendOptions, SentMessage } from '../author/sending';
import type { InboundMessage } from '../../protocol/conversations';
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

/** A media message handed to the outbox; `messageId` once the service accepted it (`confirm: true`). */
export interface SentMedia extends Partial<SentMessage> {
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

/** Media's waits after a 429 or 503: the one backoff policy (core/backoff.ts), with the spec's bases. */
export const MEDIA_BACKOFF: BackoffSettings = { baseMs: 500, maxMs: 30_000, rateLimitBaseMs: 5_000 };

/**
 * How long a media call waits before its retry number `retries` (0 first): the service's
 * Retry-After when it gave one, else 5, 10, 20 s after a 429 and 0.5–1, 1–2, 2–4 s (jittered)
 * after a 503. `random` is the workflow's deterministic `Math.random` in workflow code.
 */
export function mediaWaitMs(
  retries: number,
  hint: { status?: number; retryAfterMs?: number } | undefined,
  random: () => number = Math.random,
): number {
  if (hint?.retryAfterMs !== undefined) return Math.max(1, hint.retryAfterMs);
  return hint?.status === 503
    ? exponentialBackoffMs(retries, { ...MEDIA_BACKOFF, random })
    : rateLimitBackoffMs(retries, MEDIA_BACKOFF);
}
