/**
 * Media (spec 4.4): upload, metadata, delete and download. One place because a download by id reads
 * the metadata first, and the MIME types of uploads are remembered for the check of later sends.
 */
import { Blob } from 'node:buffer';
import { createHash } from 'node:crypto';
import { FormData } from 'undici';
import type { CallOptions, ResolvedClientOptions } from './client-options';
import { UnexpectedResponseError, ValidationError } from './errors';
import type { CallContext, RequestExecutor } from './request-executor';
import {
  AckSchema,
  MEDIA_UPLOAD_FIELDS,
  type MediaMetadata,
  MediaMetadataSchema,
  MediaUploadResponseSchema,
  MESSAGING_PRODUCT,
  mediaFileSize,
} from './schemas';
import { checkUpload, normalizeMimeType, requireNonEmptyString } from './validation';

/** Uploads get this much extra read time per byte sent (1 s per MB: a 1 MB/s floor). */
const UPLOAD_MS_PER_BYTE = 1 / 1000;
/** Uploads remembered for the send-kind check; a long-lived client forgets the oldest. */
const REMEMBERED_UPLOADS = 1000;

export interface UploadMediaOptions {
  /** MIME type of the file, e.g. `image/png`. Required. */
  mimeType: string;
  /** File name sent with the upload. Default `'file'`. */
  filename?: string;
}

export interface DownloadMediaOptions {
  /** Expected SHA-256 (hex or base64). Default: the metadata's `sha256` when downloading by id. */
  sha256?: string;
}

/** Downloaded media. */
export interface DownloadedMedia {
  data: Buffer;
  /** MIME type from the metadata, else the answer's Content-Type. */
  mimeType: string | undefined;
  /** SHA-256 of `data`, hex. */
  sha256: string;
  /** The metadata, when downloaded by id. */
  metadata: MediaMetadata | undefined;
}

/** What the media operations need of the client's options. */
export type MediaSettings = Pick<
  ResolvedClientOptions,
  'validate' | 'mediaRules' | 'maxDownloadBytes' | 'downloadOrigins'
>;

/** The media endpoints of one client. */
export class MediaClient {
  readonly #executor: RequestExecutor;
  readonly #settings: MediaSettings;
  /** Media ids uploaded by this client and their MIME type. */
  readonly #uploaded = new Map<string, string>();

  constructor(executor: RequestExecutor, settings: MediaSettings) {
    this.#executor = executor;
    this.#settings = settings;
  }

  /** The MIME type `mediaId` was uploaded with by this client, if it was. */
  uploadedMimeType(mediaId: string): string | undefined {
    return this.#uploaded.get(mediaId);
  }

  /** POST /media; resolves to the media id. */
  async upload(
    data: Uint8Array | ArrayBuffer,
    options: UploadMediaOptions,
    call: CallOptions,
  ): Promise<string> {
    if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) {
      throw new ValidationError('uploadMedia() needs the file as a Uint8Array, Buffer or ArrayBuffer.');
    }
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    const mimeType = normalizeMimeType(requireNonEmptyString(options?.mimeType, 'mimeType'));
    if (this.#settings.validate) checkUpload(bytes, mimeType, this.#settings.mediaRules);
    const filename = options.filename ?? 'file';
    return this.#executor.call(call.signal, async (ctx) => {
      const res = await this.#executor.execute(
        {
          kind: 'repeatable',
          endpoint: 'mediaUpload',
          method: 'POST',
          url: this.#executor.url('/media'),
          form: () => {
            const form = new FormData();
            form.append(MEDIA_UPLOAD_FIELDS.file, new Blob([bytes], { type: mimeType }), filename);
            form.append(MEDIA_UPLOAD_FIELDS.type, mimeType);
            form.append(MEDIA_UPLOAD_FIELDS.messagingProduct, MESSAGING_PRODUCT);
            return form;
          },
          extraReadMs: bytes.byteLength * UPLOAD_MS_PER_BYTE,
        },
        ctx,
      );
      const uploaded = this.#executor.parseOrThrow(
        res,
        MediaUploadResponseSchema,
        'POST /media',
        'an upload answer',
      );
      this.#uploaded.set(uploaded.id, mimeType);
      if (this.#uploaded.size > REMEMBERED_UPLOADS) {
        this.#uploaded.delete(this.#uploaded.keys().next().value as string);
      }
      return uploaded.id;
    });
  }

  /** GET /media/<id>: the metadata. */
  async get(mediaId: string, call: CallOptions): Promise<MediaMetadata> {
    requireNonEmptyString(mediaId, 'The media id');
    return this.#executor.call(call.signal, (ctx) => this.#metadata(mediaId, ctx));
  }

  /** DELETE /media/<id>; resolves to the service's `success`. */
  async delete(mediaId: string, call: CallOptions): Promise<boolean> {
    requireNonEmptyString(mediaId, 'The media id');
    return this.#executor.call(call.signal, async (ctx) => {
      const res = await this.#executor.execute(
        { kind: 'repeatable', endpoint: 'mediaDelete', method: 'DELETE', url: this.#mediaUrl(mediaId) },
        ctx,
      );
      return this.#executor.parseOrThrow(res, AckSchema, 'DELETE /media/<id>', 'an acknowledgement').success;
    });
  }

  /**
   * Downloads by id (metadata first, then its url) or by url, checking the SHA-256 and the size.
   * The request carries the token, so it goes only to the service's own origin or one of
   * `mediaOrigins`; a URL anywhere else is refused before anything is sent.
   */
  async download(
    idOrUrl: string,
    options: DownloadMediaOptions,
    call: CallOptions,
  ): Promise<DownloadedMedia> {
    requireNonEmptyString(idOrUrl, 'The media id or url');
    return this.#executor.call(call.signal, async (ctx) => {
      const byUrl = /^https?:\/\//i.test(idOrUrl);
      const metadata = byUrl ? undefined : await this.#metadata(idOrUrl, ctx);
      const url = downloadUrl(metadata?.url ?? idOrUrl, this.#executor.baseUrl, metadata);
      if (!this.#settings.downloadOrigins.has(url.origin)) throw foreignOrigin(url, this.#executor.baseUrl);
      const res = await this.#executor.execute(
        {
          kind: 'repeatable',
          endpoint: undefined,
          method: 'GET',
          url,
          maxResponseBytes: this.#settings.maxDownloadBytes,
        },
        ctx,
      );
      const data = res.body;
      const hex = createHash('sha256').update(data).digest('hex');
      const expected = options.sha256 ?? metadata?.sha256;
      if (expected !== undefined && !sha256Matches(expected, data, hex)) {
        throw new UnexpectedResponseError(
          `The downloaded media (${data.length} bytes) does not match its SHA-256; it is corrupt or not the ` +
            'file that was sent. Download it again.',
          res.status,
          `<${data.length} bytes of media>`,
        );
      }
      const size = metadata ? mediaFileSize(metadata) : undefined;
      if (size !== undefined && size !== data.length) {
        throw new UnexpectedResponseError(
          `The downloaded media is ${data.length} bytes but its metadata says ${size}; download it again.`,
          res.status,
          `<${data.length} bytes of media>`,
        );
      }
      const contentType = res.headers['content-type'];
      return {
        data,
        mimeType: metadata?.mime_type ?? (typeof contentType === 'string' ? contentType : undefined),
        sha256: hex,
        metadata,
      };
    });
  }

  async #metadata(mediaId: string, ctx: CallContext): Promise<MediaMetadata> {
    const res = await this.#executor.execute(
      { kind: 'repeatable', endpoint: 'mediaGet', method: 'GET', url: this.#mediaUrl(mediaId) },
      ctx,
    );
    return this.#executor.parseOrThrow(res, MediaMetadataSchema, 'GET /media/<id>', 'media metadata');
  }

  #mediaUrl(mediaId: string): URL {
    return this.#executor.url(`/media/${encodeURIComponent(mediaId)}`);
  }
}

/** Whether `expected` (hex, or base64 of either alphabet, padded or not) is the digest of `data`. */
function sha256Matches(expected: string, data: Buffer, hex: string): boolean {
  const e = expected.trim();
  if (/^[0-9a-f]{64}$/i.test(e)) return e.toLowerCase() === hex;
  const b64 = createHash('sha256').update(data).digest('base64');
  const normalise = (s: string): string => s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  return normalise(e) === normalise(b64);
}

/** The URL to download `target` (the metadata's url, or the caller's) from, relative to the service. */
function downloadUrl(target: string, baseUrl: string, metadata: MediaMetadata | undefined): URL {
  if (!URL.canParse(target, `${baseUrl}/`)) {
    const what = `${JSON.stringify(target)} is not a URL`;
    throw metadata
      ? new UnexpectedResponseError(
          `The media metadata's url ${what}; the service answered something unusable.`,
          200,
          JSON.stringify(metadata),
        )
      : new ValidationError(`downloadMedia(): ${what}; pass a media id or an http(s) url.`);
  }
  return new URL(target, `${baseUrl}/`);
}

/** Media at an origin the token may not go to: nothing was sent there. */
function foreignOrigin(url: URL, baseUrl: string): ValidationError {
  return new ValidationError(
    `Refusing to download media from ${url.origin}: the request would carry the token, which goes only to ` +
      `the service's origin (${new URL(baseUrl).origin}) and the origins in mediaOrigins ` +
      '(AMSFLOW_MEDIA_ORIGINS for the worker). Add it there if the service really serves its media from it.',
  );
}
