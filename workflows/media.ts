/**
 * Media helpers for workflow code: send an image, video, audio, document or sticker from bytes
 * or from a media id, and download the human's media. Every request to the service is an
 * activity on the agent's media task queue (`<prefix>-media`); every message goes through the
 * agent's outbox (`send`).
 *
 * Bytes that pass through a workflow are recorded in its history (base64 in the activity's input
 * or result), so they are capped at {@link MAX_INLINE_MEDIA_BYTES} (256 KiB) both ways. Larger
 * media stay ids: upload or download them in your own activity and hand the workflow the id.
 * The service itself never takes bytes in a message (spec 1, 4.1): a media message references
 * a media id from an earlier upload, and there are no links.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ActivityFailureTypes } from '../protocol/failures';
import { activityQueue } from '../protocol/queues';
import { mediaMessage } from './builders';
import { send, type SendOptions, type SentMessage } from './sending';
import { current } from './conversation-state';
import type { InboundMessage } from './types';

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
 * (WhatsApp's published caps, decimal bytes), the same table as the messaging client's
 * `DEFAULT_MEDIA_RULES` (workflow code cannot load that module; a unit test keeps the two equal).
 */
export const MEDIA_RULES: Readonly<Record<MediaKind, MediaKindRule>> = Object.freeze({
  image: { mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 5_000_000 },
  video: { mimeTypes: ['video/mp4', 'video/3gpp', 'video/3gp'], maxBytes: 16_000_000 },
  audio: {
    mimeTypes: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
    maxBytes: 16_000_000,
  },
  document: {
    mimeTypes: [
      'text/plain',
      'application/pdf',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
    maxBytes: 100_000_000,
  },
  sticker: { mimeTypes: ['image/webp'], maxBytes: 500_000, maxBytesStatic: 100_000 },
});

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

// ---------------------------------------------------------------------------------------------
// Where the media activities run
// ---------------------------------------------------------------------------------------------

let queuePrefix: string | undefined;

/**
 * Sets the prefix of the activity task queues this workflow's media requests go to
 * (`<prefix>-media`): the agent's `activityQueuePrefix`. Handlers get it from their input;
 * without it (the default deployment) the prefix is this workflow's own task queue, which is the
 * agent's, whose prefix defaults to it. Call it in a workflow started on another task queue.
 */
export function setMediaTaskQueuePrefix(prefix: string | undefined): void {
  queuePrefix = prefix;
}

type MediaActivities = Pick<Activities, 'uploadMedia' | 'getMedia' | 'downloadMedia'>;

/**
 * Media activities. Uploads and downloads alike are retried by Temporal after transient failures
 * (5xx, dropped connections, timeouts, a worker lost mid-request): the spec's three retries with
 * backoff from 0.5 s to 30 s. A download is idempotent. An upload is not: a retried upload whose
 * first attempt had reached the service leaves an unused media item behind, which expires with
 * the rest after 30 days; nothing is sent twice, because the message is sent once, by the
 * outbox, with the id that came back. 429 and 503 are waited out by {@link mediaCall}.
 */
function mediaActivities(): MediaActivities {
  return proxyActivities<Activities>({
    taskQueue: activityQueue(queuePrefix ?? workflowInfo().taskQueue, 'media'),
    startToCloseTimeout: '60s',
    retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 4 },
  });
}

/** Retries after 429/503 (spec: three, then give up). */
const MAX_RATE_LIMIT_RETRIES = 3;

/**
 * Runs one media activity; waits out rate limiting (429, 503) with durable timers, honouring
 * Retry-After, else 5, 10, 20 s (429) or 0.5, 1, 2 s (503), and maps what is left to a typed failure.
 */
async function mediaCall<T>(what: 'upload' | 'download', call: () => Promise<T>): Promise<T> {
  for (let retries = 0; ; retries++) {
    try {
      return await call();
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
      if (type === ActivityFailureTypes.rateLimited && retries < MAX_RATE_LIMIT_RETRIES) {
        const hint = (cause as ApplicationFailure).details?.[0] as
          { status?: number; retryAfterMs?: number } | undefined;
        const waitMs =
          hint?.retryAfterMs ?? (hint?.status === 503 ? 500 * 2 ** retries : 5000 * 2 ** retries);
        await sleep(Math.max(1, waitMs));
        continue;
      }
      throw requestFailure(what, err, type);
    }
  }
}

function requestFailure(
  what: 'upload' | 'download',
  err: unknown,
  causeType: string | undefined,
): ApplicationFailure {
  const detail = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
  if (causeType === ActivityFailureTypes.invalidRequest) {
    return what === 'upload'
      ? fail('invalid', `The service refused the upload: ${detail}. Nothing was sent.`, { causeType }, err)
      : fail(
          'unavailable',
          `The service does not know this media (unknown, or expired: media live 30 days): ${detail}`,
          { causeType },
          err,
        );
  }
  return fail(
    'requestFailed',
    `The media ${what} failed${causeType ? ` (${causeType})` : ''}: ${detail}.${what === 'upload' ? ' Nothing was sent.' : ''}`,
    { causeType },
    err,
  );
}

function fail(
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
function normalizeMimeType(mimeType: string): string {
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

function isBytesSource(source: MediaSource): source is MediaBytes {
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

// ---------------------------------------------------------------------------------------------
// Base64 (workflow code has no Buffer)
// ---------------------------------------------------------------------------------------------

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

/** Standard base64 (with padding) of `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    chunk +=
      B64[(n >> 18) & 63] +
      B64[(n >> 12) & 63] +
      (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') +
      (i + 2 < bytes.length ? B64[n & 63] : '=');
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}

/** Bytes of standard or url-safe base64 (padding optional, whitespace ignored). */
export function base64ToBytes(base64: string): Uint8Array {
  const clean = base64.replace(/[\s=]/g, '').replace(/-/g, '+').replace(/_/g, '/');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (const c of clean) {
    const v = B64_INDEX.get(c);
    if (v === undefined) throw new TypeError(`Not base64: unexpected character ${JSON.stringify(c)}`);
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

/**
 * Sends a media message of `kind` from bytes (uploaded first through the `uploadMedia` activity)
 * or from a media id, through the agent's outbox, and resolves to its message id and media id.
 * Everything is checked before anything is uploaded or sent ({@link checkMediaSend}).
 *
 * Fails with a non-retryable `ApplicationFailure` whose `type` is `MediaTooLarge` or
 * `MediaInvalid` (local checks, or the service refused the upload), `MediaRequestFailed` (the
 * upload failed for good), or a send's own `SendFailureType` (`AmbiguousSend`, `SendInvalid`, ...).
 */
export async function sendMedia(
  kind: MediaKind,
  source: MediaSource,
  options: AnyMediaOptions = {},
): Promise<SentMedia> {
  checkMediaSend(kind, source, options);
  const conv = current();
  let mediaId: string;
  let filename = options.filename;
  const uploaded = isBytesSource(source);
  if (isBytesSource(source)) {
    const acts = mediaActivities();
    const { id } = await mediaCall('upload', () =>
      acts.uploadMedia({
        agentKey: conv.agentKey,
        dataBase64: bytesToBase64(source.bytes),
        mimeType: normalizeMimeType(source.mimeType),
        ...(source.filename === undefined ? {} : { filename: source.filename }),
      }),
    );
    mediaId = id;
    if (kind === 'document') filename ??= source.filename;
  } else {
    mediaId = source.mediaId;
  }
  const message = mediaMessage(kind, mediaId, {
    ...(options.caption === undefined ? {} : { caption: options.caption }),
    ...(filename === undefined ? {} : { filename }),
    ...(options.replyTo === undefined ? {} : { replyTo: options.replyTo }),
  });
  const sent = await send(message, {
    ...(options.retryAmbiguous === undefined ? {} : { retryAmbiguous: options.retryAmbiguous }),
    ...(options.reconcileAmbiguous === undefined ? {} : { reconcileAmbiguous: options.reconcileAmbiguous }),
  });
  return { ...sent, mediaId, uploaded };
}

/** Sends an image (image/jpeg or image/png), optionally with a caption. See {@link sendMedia}. */
export function sendImage(source: MediaSource, options: CaptionedMediaOptions = {}): Promise<SentMedia> {
  return sendMedia('image', source, options);
}

/** Sends a video (video/mp4, video/3gpp), optionally with a caption. See {@link sendMedia}. */
export function sendVideo(source: MediaSource, options: CaptionedMediaOptions = {}): Promise<SentMedia> {
  return sendMedia('video', source, options);
}

/** Sends audio (aac, amr, mpeg, mp4, ogg); audio takes no caption. See {@link sendMedia}. */
export function sendAudio(source: MediaSource, options: MediaSendOptions = {}): Promise<SentMedia> {
  return sendMedia('audio', source, options);
}

/**
 * Sends a document (plain text, PDF, Office formats), optionally with a caption and a filename
 * (default: the bytes' `filename`). See {@link sendMedia}.
 */
export function sendDocument(source: MediaSource, options: DocumentOptions = {}): Promise<SentMedia> {
  return sendMedia('document', source, options);
}

/** Sends a sticker (image/webp: 100 KB static, 500 KB animated); no caption. See {@link sendMedia}. */
export function sendSticker(source: MediaSource, options: MediaSendOptions = {}): Promise<SentMedia> {
  return sendMedia('sticker', source, options);
}

// ---------------------------------------------------------------------------------------------
// Downloading
// ---------------------------------------------------------------------------------------------

function fileSize(metadata: Record<string, unknown>): number | undefined {
  const raw = metadata.file_size;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Downloads the media of an inbound message (or a `{ mediaId }`) into the workflow, through two
 * activities on the media queue: `getMedia` (the metadata: its size is checked against
 * `maxBytes` before a byte moves) and `downloadMedia` (checked against the metadata's SHA-256
 * and size). Both are idempotent and retried; 429/503 are waited out. Each download costs two
 * GET /media/<id> requests of that endpoint's 12 a minute.
 *
 * Fails with a non-retryable `ApplicationFailure` of type `NotMediaMessage` (the message has no
 * media), `MediaTooLarge` (larger than `maxBytes`, default {@link MAX_INLINE_MEDIA_BYTES}, or the
 * service shows no size), `MediaInvalid` (bad options), `MediaUnavailable` (unknown or expired
 * id) or `MediaRequestFailed`. Larger media: pass `mediaOf(msg).mediaId` to your own activity and
 * download it there (`MessagingClient.downloadMedia(mediaId)`).
 */
export async function downloadMedia(
  source: InboundMessage | MediaRef,
  options: DownloadOptions = {},
): Promise<DownloadedMedia> {
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
  const conv = current();
  const acts = mediaActivities();
  const metadata = await mediaCall('download', () => acts.getMedia({ agentKey: conv.agentKey, mediaId }));
  const size = fileSize(metadata);
  const metaMime = typeof metadata.mime_type === 'string' ? metadata.mime_type : undefined;
  if (size === undefined || size > maxBytes) {
    throw fail(
      'tooLarge',
      (size === undefined
        ? `The service shows no size for media ${mediaId}, so it cannot be proven to fit in ${maxBytes} bytes.`
        : `Media ${mediaId} is ${size} bytes; downloadMedia moves at most ${maxBytes} into workflow history.`) +
        ' Download it in your own activity by its id (MessagingClient.downloadMedia(mediaId)).',
      { mediaId, size, maxBytes, mimeType: metaMime ?? inbound?.mimeType },
    );
  }
  const downloaded = await mediaCall('download', () =>
    acts.downloadMedia({ agentKey: conv.agentKey, mediaId }),
  );
  const bytes = base64ToBytes(downloaded.dataBase64);
  if (bytes.byteLength > maxBytes) {
    // The metadata understated the size; refuse rather than hand on more than was promised.
    throw fail(
      'tooLarge',
      `Media ${mediaId} turned out to be ${bytes.byteLength} bytes (over ${maxBytes}).`,
      {
        mediaId,
        size: bytes.byteLength,
        maxBytes,
      },
    );
  }
  const sha256 = typeof metadata.sha256 === 'string' ? metadata.sha256 : inbound?.sha256;
  return {
    mediaId,
    ...(inbound ? { kind: inbound.kind } : {}),
    bytes,
    mimeType: metaMime ?? downloaded.mimeType ?? inbound?.mimeType ?? 'application/octet-stream',
    size: bytes.byteLength,
    ...(sha256 === undefined ? {} : { sha256 }),
    ...(inbound?.caption === undefined ? {} : { caption: inbound.caption }),
    ...(inbound?.filename === undefined ? {} : { filename: inbound.filename }),
  };
}
