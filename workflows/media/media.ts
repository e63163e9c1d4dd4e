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
import { activityQueuePrefix, setActivityQueuePrefix } from '../author/activity-queues';
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { type InboundMessage } from '../../protocol/conversations';
import { ActivityFailureTypes } from '../../protocol/failures';
import { activityQueue } from '../../protocol/agent';
import { mediaMessage } from '../author/builders';
import { send } from '../author/sending';
import { current } from '../author/conversation-state';
import {
  base64ToBytes,
  bytesToBase64,
  fail,
  mediaWaitMs,
  type AnyMediaOptions,
  type CaptionedMediaOptions,
  type DocumentOptions,
  type DownloadOptions,
  type DownloadedMedia,
  type MediaKind,
  type MediaRef,
  type MediaSendOptions,
  type MediaSource,
  type SentMedia,
} from './media-rules';
import {
  checkDownloadSize,
  checkMediaSend,
  downloadTarget,
  isBytesSource,
  normalizeMimeType,
} from './media-checks';

export * from './media-rules';
export { checkMediaSend, isBytesSource, normalizeMimeType } from './media-checks';

// ---------------------------------------------------------------------------------------------
// Where the media activities run
// ---------------------------------------------------------------------------------------------

/**
 * Sets the prefix of the activity task queues this workflow's media requests go to
 * (`<prefix>-media`): the agent's `activityQueuePrefix`, which `handleMessages` takes from the
 * handler's input. Not part of the author API: any other workflow uses its own task queue, which
 * is the agent's in the default deployment.
 */
export function setMediaTaskQueuePrefix(prefix: string): void {
  setActivityQueuePrefix(prefix);
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
    taskQueue: activityQueue(activityQueuePrefix() ?? workflowInfo().taskQueue, 'media'),
    startToCloseTimeout: '60s',
    // A worker lost mid-request is noticed within this (the activities heartbeat while they wait).
    heartbeatTimeout: '10s',
    retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 4 },
  });
}

/** Retries after 429/503 (spec: three, then give up). */
const MAX_RATE_LIMIT_RETRIES = 3;

/**
 * Runs one media activity; waits out rate limiting (429, 503) with durable timers, honouring
 * Retry-After, else the backoff of {@link mediaWaitMs}, and maps what is left to a typed failure.
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
        await sleep(mediaWaitMs(retries, hint));
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

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

/**
 * Sends a media message of `kind` from bytes (uploaded first through the `uploadMedia` activity)
 * or from a media id, through the agent's outbox, and resolves to its media id (and, with
 * `confirm: true`, its message id once the service accepted it).
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
  const sendOptions = {
    ...(options.retryAmbiguous === undefined ? {} : { retryAmbiguous: options.retryAmbiguous }),
    ...(options.reconcileAmbiguous === undefined ? {} : { reconcileAmbiguous: options.reconcileAmbiguous }),
  };
  if (!options.confirm) {
    await send(message, sendOptions);
    return { mediaId, uploaded };
  }
  const sent = await send(message, { ...sendOptions, confirm: true });
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
  const target = downloadTarget(source, options);
  const { mediaId, inbound, maxBytes } = target;
  const conv = current();
  const acts = mediaActivities();
  const metadata = await mediaCall('download', () => acts.getMedia({ agentKey: conv.agentKey, mediaId }));
  checkDownloadSize(target, metadata);
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
  const metaMime = typeof metadata.mime_type === 'string' ? metadata.mime_type : undefined;
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
