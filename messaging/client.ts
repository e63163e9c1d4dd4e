/**
 * MessagingClient: the Agent Messaging Service's HTTP client, following every client rule of the
 * spec (sections 4-8): pacing, retries, send-outcome classification, local checks, recipient
 * discovery and a poll loop. Usable on its own; activities reach the service only through it.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { Blob } from 'node:buffer';
import { Agent, type Dispatcher, FormData } from 'undici';
import { type BackoffSettings, exponentialBackoffMs, rateLimitBackoffMs } from './backoff';
import { sleep } from './clock';
import {
  AmbiguousSendError,
  ClientClosedError,
  RateLimitError,
  RequestAbortedError,
  TransportError,
  UnexpectedResponseError,
  ValidationError,
} from './errors';
import { type Limits, PACED_ENDPOINTS, type PacedEndpoint, resolveLimits } from './limits';
import { classifyAnswer, classifyFailure, readAnswer, type RequestKind } from './outcome';
import { recipientFromPage } from './page';
import { type PollEvent, type PollOptions, pollLoop } from './poll';
import { RollingWindowLimiter } from './rate-limiter';
import { RecentIds } from './recent-ids';
import { SerialQueue } from './serial-queue';
import {
  AckSchema,
  type MediaKind,
  MEDIA_UPLOAD_FIELDS,
  type MediaMetadata,
  MediaMetadataSchema,
  MediaUploadResponseSchema,
  MESSAGING_PRODUCT,
  mediaFileSize,
  mediaPayload,
  type OutgoingMessage,
  replyContext,
  type SendResponse,
  SendResponseSchema,
  sendResponseRecipient,
  statusBody,
  UPDATES_QUERY,
  type UpdatePage,
  UpdatePageSchema,
} from './schemas';
import { httpExchange, type HttpResponse } from './transport';
import {
  checkCaption,
  checkMediaKind,
  checkOutgoing,
  checkRecipient,
  checkUpdatesParams,
  checkUpload,
  type MediaRule,
  type MediaRules,
  normalizeMimeType,
  requireNonEmptyString,
  resolveMediaRules,
} from './validation';
import type { z } from 'zod';

/**
 * Default `baseUrl`. The spec names no public host, so this is a placeholder on the reserved
 * `.example` domain (RFC 2606): it can never resolve, so a client left unconfigured fails at once
 * with a message saying to set `baseUrl`, and never sends the token to a host someone could own.
 */
export const DEFAULT_BASE_URL = 'https://ams.example/agent/v1';

/** Long-poll wait the service uses when `timeout` is not given (spec 4.2), seconds. */
const SERVICE_DEFAULT_POLL_TIMEOUT_S = 15;
/** Largest JSON answer read, bytes. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;
/** Uploads get this much extra read time per byte sent (1 s per MB: a 1 MB/s floor). */
const UPLOAD_MS_PER_BYTE = 1 / 1000;

/** Options of {@link MessagingClient}. Only `token` is required. */
export interface MessagingClientOptions {
  /** The agent's API token, sent as `Authorization: Bearer <token>`. Required. Never logged or put in an error. */
  token: string;
  /**
   * Service root including the version prefix (ends in `/agent/v1`). Default {@link DEFAULT_BASE_URL},
   * a placeholder that never resolves: set it to your service's address (or a simulator's `url`).
   */
  baseUrl?: string;
  /**
   * Read timeout in ms: the longest silence while waiting for an answer or between body chunks.
   * Long polls get `timeout` seconds on top, uploads 1 s per MB on top. Default 30000.
   */
  timeoutMs?: number;
  /** Retries after a retryable failure, per call. Default 3. */
  maxRetries?: number;
  /** Lower bound of the exponential backoff with jitter, ms. Default 500. */
  backoffBaseMs?: number;
  /** Upper bound of the exponential backoff with jitter, ms. Default 30000. */
  backoffMaxMs?: number;
  /**
   * First wait after a 429 without Retry-After, ms; it doubles on each further one (5, 10, 20 s by
   * default, as the spec says). A Retry-After header is honoured exactly instead. Default 5000.
   */
  rateLimitBackoffMs?: number;
  /** Pace requests to the per-endpoint windows of `limits` (spec 8). Default true. */
  rateLimit?: boolean;
  /**
   * Retry a send after a 500, a dropped connection or a read timeout. Such a send may already have
   * been delivered, so a retry can duplicate it: opt in only if duplicates are acceptable. Default false.
   */
  retrySendOnServerError?: boolean;
  /**
   * Local checks before a request leaves: recipient form, text and caption lengths, reaction sends,
   * payload objects, MIME types and media sizes. Default true.
   */
  validate?: boolean;
  /**
   * A client that has never polled finds the recipient with one `offset=0&timeout=0` poll before its
   * first send that names none. Default true.
   */
  autoDiscover?: boolean;
  /**
   * undici Dispatcher (Agent, Pool, MockAgent, ProxyAgent...) to send requests through. It belongs to
   * the caller and is left open by {@link MessagingClient.close}. Default: an Agent owned and closed by
   * the client.
   */
  dispatcher?: Dispatcher;
  /** `User-Agent` header. Default: none (undici's own). */
  userAgent?: string;
  /** Per-endpoint budgets per rolling window; unspecified members keep the spec's (section 8). Default: spec. */
  limits?: Partial<Limits>;
  /** A known recipient (`user:<id>`) to start from. Default: none (learned from polls and sends, or discovered). */
  recipient?: string;
  /** Per-kind overrides of the accepted MIME types and size caps. Default: WIRE-CONVENTIONS' table. */
  mediaRules?: Partial<Record<MediaKind, Partial<MediaRule>>>;
  /** Largest media download accepted, bytes. Default 100000000 (the document cap). */
  maxDownloadBytes?: number;
}

/**
 * The optional last argument of every method. `signal` cancels the in-flight request and any wait
 * (send queue, pacing, backoff); the call then rejects with RequestAbortedError.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options shared by every send. */
export interface SendOptions {
  /** Recipient (`user:<id>`). Default: the one last seen on a poll or a send (or discovered). */
  to?: string;
  /** Message id (wamid) to quote. */
  replyTo?: string;
}

export interface SendTextOptions extends SendOptions {
  /** Render a preview of the first URL in the body (it must start with http:// or https://). Default false. */
  previewUrl?: boolean;
}

export interface SendCaptionedOptions extends SendOptions {
  /** Caption, up to 1024 characters. */
  caption?: string;
}

export interface SendDocumentOptions extends SendCaptionedOptions {
  /** File name shown to the human; keep the extension. */
  filename?: string;
}

/** The outcome of a successful send. */
export interface SendResult {
  /** The message id (wamid): record it, receipts refer to it. */
  messageId: string;
  /** The recipient the service answered with (`wa_id`), else the one sent to. */
  recipient: string;
  /** The parsed send result as received. */
  raw: SendResponse;
}

export interface GetUpdatesParams {
  /** Position to read from: `next_offset` of the previous page; the same value after a 204. */
  offset?: number;
  /** Page size. Default: the service's (50). */
  limit?: number;
  /** Long-poll wait in seconds, 0 to 25. Default: the service's (15). */
  timeout?: number;
}

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

interface Request {
  kind: RequestKind;
  /** Pacing counter; undefined = not paced (media URL fetches have no counter in the spec). */
  endpoint: PacedEndpoint | undefined;
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  json?: unknown;
  form?: () => FormData;
  readTimeoutMs: number;
  maxResponseBytes: number;
  isPoll?: boolean;
  signal: AbortSignal;
  state: CallState;
}

interface CallState {
  /** A request of this call may have taken effect (sends: may have been delivered). */
  mayHaveLanded: boolean;
}

function nonNegative(value: number | undefined, name: string, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new ValidationError(`Option ${name} must be a non-negative ${integer ? 'integer' : 'number'}.`);
  }
  return value;
}

/** A signal that aborts when either input does; `dispose` detaches it (no listener leaks on long-lived signals). */
function linkSignals(
  a: AbortSignal,
  b: AbortSignal | undefined,
): { signal: AbortSignal; dispose: () => void } {
  if (!b) return { signal: a, dispose: () => undefined };
  const controller = new AbortController();
  const onA = (): void => controller.abort(a.reason);
  const onB = (): void => controller.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  else {
    a.addEventListener('abort', onA, { once: true });
    b.addEventListener('abort', onB, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}

/**
 * The service client. Safe to share: calls may run concurrently; sends are queued and issued one
 * at a time in call order; each endpoint is paced to its window.
 */
export class MessagingClient {
  readonly #token: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retrySendOnServerError: boolean;
  readonly #validate: boolean;
  readonly #autoDiscover: boolean;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #userAgent: string | undefined;
  readonly #limiters: Record<PacedEndpoint, RollingWindowLimiter> | undefined;
  readonly #mediaRules: MediaRules;
  readonly #maxDownloadBytes: number;
  readonly #sendQueue = new SerialQueue();
  readonly #lifetime = new AbortController();
  /** Media ids uploaded by this client and their MIME type, for the send-kind check. */
  readonly #uploaded = new Map<string, string>();
  #recipient: string | undefined;
  #polled = false;
  #discovery: Promise<string> | undefined;
  #closed = false;

  /** Backoff settings (read by the poll loop). */
  readonly backoff: BackoffSettings;
  /** Ids handled by this client's poll loops (for de-duplication). */
  readonly handled = new RecentIds(10_000);
  /** The effective limits. */
  readonly limits: Readonly<Limits>;

  constructor(options: MessagingClientOptions) {
    if (typeof options?.token !== 'string' || options.token.length === 0) {
      throw new ValidationError('Option token is required: the agent API token (a non-empty string).');
    }
    this.#token = options.token;
    // Every pending call listens on the client's lifetime signal; many may be pending at once.
    setMaxListeners(0, this.#lifetime.signal);
    const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    try {
      const parsed = new URL(baseUrl);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
    } catch {
      throw new ValidationError(
        'Option baseUrl must be an absolute http(s) URL ending in the version prefix (/agent/v1).',
      );
    }
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = nonNegative(options.timeoutMs, 'timeoutMs', 30_000);
    if (this.#timeoutMs === 0) throw new ValidationError('Option timeoutMs must be positive.');
    this.#maxRetries = nonNegative(options.maxRetries, 'maxRetries', 3, true);
    const baseMs = nonNegative(options.backoffBaseMs, 'backoffBaseMs', 500);
    const maxMs = nonNegative(options.backoffMaxMs, 'backoffMaxMs', 30_000);
    if (maxMs < baseMs) throw new ValidationError('Option backoffMaxMs must not be below backoffBaseMs.');
    this.backoff = {
      baseMs,
      maxMs,
      rateLimitBaseMs: nonNegative(options.rateLimitBackoffMs, 'rateLimitBackoffMs', 5_000),
    };
    this.#retrySendOnServerError = options.retrySendOnServerError ?? false;
    this.#validate = options.validate ?? true;
    this.#autoDiscover = options.autoDiscover ?? true;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent();
    this.#userAgent = options.userAgent;
    try {
      this.limits = Object.freeze(resolveLimits(options.limits));
    } catch (err) {
      throw new ValidationError(`Option ${(err as Error).message}.`);
    }
    this.#limiters =
      options.rateLimit === false
        ? undefined
        : (Object.fromEntries(
            PACED_ENDPOINTS.map((e) => [
              e,
              new RollingWindowLimiter({ limit: this.limits[e], windowMs: this.limits.windowMs }),
            ]),
          ) as Record<PacedEndpoint, RollingWindowLimiter>);
    this.#mediaRules = resolveMediaRules(options.mediaRules);
    this.#maxDownloadBytes = nonNegative(options.maxDownloadBytes, 'maxDownloadBytes', 100_000_000, true);
    if (options.recipient !== undefined) {
      if (this.#validate) checkRecipient(options.recipient);
      this.#recipient = options.recipient;
    }
  }

  /** The recipient last seen on a poll or a send (or given), or undefined when none is known yet. */
  get recipient(): string | undefined {
    return this.#recipient;
  }

  /** True once this client has issued a GET /updates (it will then never run a discovery poll). */
  get hasPolled(): boolean {
    return this.#polled;
  }

  // -------------------------------------------------------------------------------------------
  // Sends
  // -------------------------------------------------------------------------------------------

  /** Sends a text message (up to 4096 characters). */
  sendText(body: string, options: SendTextOptions = {}, call: CallOptions = {}): Promise<SendResult> {
    const text: Record<string, unknown> = { body };
    if (options.previewUrl !== undefined) text.preview_url = options.previewUrl;
    return this.#sendMessage({ type: 'text', text }, options, call);
  }

  /** Sends an uploaded image (JPEG or PNG) with an optional caption. */
  sendImage(
    mediaId: string,
    options: SendCaptionedOptions = {},
    call: CallOptions = {},
  ): Promise<SendResult> {
    return this.#sendMedia('image', mediaId, options, { caption: options.caption }, call);
  }

  /** Sends an uploaded video (MP4 or 3GPP) with an optional caption. */
  sendVideo(
    mediaId: string,
    options: SendCaptionedOptions = {},
    call: CallOptions = {},
  ): Promise<SendResult> {
    return this.#sendMedia('video', mediaId, options, { caption: options.caption }, call);
  }

  /** Sends an uploaded audio file (no caption). */
  sendAudio(mediaId: string, options: SendOptions = {}, call: CallOptions = {}): Promise<SendResult> {
    return this.#sendMedia('audio', mediaId, options, {}, call);
  }

  /** Sends an uploaded document with an optional caption and filename. */
  sendDocument(
    mediaId: string,
    options: SendDocumentOptions = {},
    call: CallOptions = {},
  ): Promise<SendResult> {
    return this.#sendMedia(
      'document',
      mediaId,
      options,
      { caption: options.caption, filename: options.filename },
      call,
    );
  }

  /** Sends an uploaded sticker (WebP, no caption). */
  sendSticker(mediaId: string, options: SendOptions = {}, call: CallOptions = {}): Promise<SendResult> {
    return this.#sendMedia('sticker', mediaId, options, {}, call);
  }

  /**
   * Sends any message body: `{ type, [type]: payload, to?, context? }`. Types this client does not
   * know pass through as given. `to` defaults to the known recipient.
   */
  async send<M extends OutgoingMessage>(message: M, call: CallOptions = {}): Promise<SendResult> {
    if (typeof message !== 'object' || message === null || typeof message.type !== 'string') {
      throw new ValidationError('send() needs a message object with a string `type`; nothing was sent.');
    }
    const { to, ...rest } = message as OutgoingMessage & Record<string, unknown>;
    return this.#sendMessage(rest, { to }, call);
  }

  async #sendMedia(
    kind: MediaKind,
    mediaId: string,
    options: SendOptions,
    extras: { caption?: string; filename?: string },
    call: CallOptions,
  ): Promise<SendResult> {
    requireNonEmptyString(mediaId, 'The media id');
    if (this.#validate) {
      checkCaption(kind, extras.caption);
      checkMediaKind(kind, this.#uploaded.get(mediaId), this.#mediaRules);
    }
    return this.#sendMessage({ type: kind, [kind]: mediaPayload(mediaId, extras) }, options, call);
  }

  async #sendMessage(
    message: Record<string, unknown>,
    options: SendOptions,
    call: CallOptions,
  ): Promise<SendResult> {
    const { to, replyTo } = options;
    const body: Record<string, unknown> = { ...message };
    if (replyTo !== undefined) {
      requireNonEmptyString(replyTo, 'replyTo (the message id to quote)');
      body.context = replyContext(replyTo);
    }
    if (this.#validate) {
      if (to !== undefined) checkRecipient(to);
      checkOutgoing(body);
    }
    return this.#call(call.signal, (signal, state) =>
      this.#sendQueue.run(async () => {
        const recipient = to ?? (await this.#resolveRecipient(signal));
        const res = await this.#execute({
          kind: 'send',
          endpoint: 'messages',
          method: 'POST',
          url: this.#url('/messages'),
          json: { to: recipient, ...body },
          readTimeoutMs: this.#timeoutMs,
          maxResponseBytes: MAX_JSON_BYTES,
          signal,
          state,
        });
        const parsed = this.#parseJson(res, SendResponseSchema);
        if (!parsed.ok) {
          throw new AmbiguousSendError(
            `POST /messages answered ${res.status} with a body that is not a send result (${parsed.problem}); ` +
              'the service accepted the message but its id is unknown. Do not repeat it.',
            'malformed_response',
            { status: res.status, body: parsed.raw },
          );
        }
        const seen = sendResponseRecipient(parsed.data);
        if (seen !== undefined) this.#recipient = seen;
        return { messageId: parsed.data.messages[0].id, recipient: seen ?? recipient, raw: parsed.data };
      }, signal),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Recipient
  // -------------------------------------------------------------------------------------------

  /**
   * Finds the recipient. Returns the known one without a request; otherwise, on a client that has
   * never polled, runs the one discovery poll (`offset=0&timeout=0`). Fails with a ValidationError
   * when no recipient can be known yet.
   */
  discoverRecipient(call: CallOptions = {}): Promise<string> {
    return this.#call(call.signal, (signal) => this.#resolveRecipient(signal));
  }

  async #resolveRecipient(signal: AbortSignal): Promise<string> {
    if (this.#recipient !== undefined) return this.#recipient;
    if (this.#discovery) return untilAborted(this.#discovery, signal);
    if (!this.#autoDiscover) {
      throw new ValidationError(
        'No recipient is known yet and autoDiscover is off. Pass `to` (a user:<id> taken from an inbound ' +
          'message), set the `recipient` option, or poll first. Nothing was sent.',
      );
    }
    if (this.#polled) {
      throw new ValidationError(
        'No recipient is known yet. This client has already polled, so it will not run a discovery poll ' +
          '(that would replace its running poll loop); the recipient is learned from the first inbound ' +
          'message. Wait for the human to write, or pass `to`. Nothing was sent.',
      );
    }
    // One discovery serves every concurrent caller; it is tied to the client, not to the first
    // caller's signal, and each caller can still stop waiting for it.
    this.#discovery ??= this.#discover().finally(() => {
      this.#discovery = undefined;
    });
    return untilAborted(this.#discovery, signal);
  }

  async #discover(): Promise<string> {
    const page = await this.#getUpdates({ offset: 0, timeout: 0 }, this.#lifetime.signal, {
      mayHaveLanded: false,
    });
    const found = page === null ? undefined : recipientFromPage(page);
    if (found === undefined) {
      throw new ValidationError(
        'No recipient is known yet: the discovery poll (offset=0, timeout=0) ' +
          `${page === null ? 'answered 204 (no traffic)' : 'named no contact'}, so the human has not written ` +
          'to this agent yet. Ask them to send a message first, or pass `to` / the `recipient` option. ' +
          'Nothing was sent.',
      );
    }
    return found;
  }

  // -------------------------------------------------------------------------------------------
  // Updates
  // -------------------------------------------------------------------------------------------

  /**
   * One GET /updates. Resolves to the page, or null on 204 (no traffic before the timeout: poll the
   * same offset again). Learns the recipient from the page. Only one poll per agent may run: a newer
   * one makes this one fail with PollReplacedError.
   */
  async getUpdates(params: GetUpdatesParams = {}, call: CallOptions = {}): Promise<UpdatePage | null> {
    const { offset, limit, timeout } = params;
    checkUpdatesParams({ offset, limit, timeout });
    return this.#call(call.signal, (signal, state) =>
      this.#getUpdates({ offset, limit, timeout }, signal, state),
    );
  }

  async #getUpdates(
    params: { offset?: number; limit?: number; timeout?: number },
    signal: AbortSignal,
    state: CallState,
  ): Promise<UpdatePage | null> {
    const url = this.#url('/updates');
    if (params.offset !== undefined) url.searchParams.set(UPDATES_QUERY.offset, String(params.offset));
    if (params.limit !== undefined) url.searchParams.set(UPDATES_QUERY.limit, String(params.limit));
    if (params.timeout !== undefined) url.searchParams.set(UPDATES_QUERY.timeout, String(params.timeout));
    this.#polled = true;
    const res = await this.#execute({
      kind: 'repeatable',
      endpoint: 'updates',
      method: 'GET',
      url,
      // Beyond the long-poll window, so that an ordinary wait is not a failure.
      readTimeoutMs: (params.timeout ?? SERVICE_DEFAULT_POLL_TIMEOUT_S) * 1000 + this.#timeoutMs,
      maxResponseBytes: MAX_JSON_BYTES,
      isPoll: true,
      signal,
      state,
    });
    if (res.status === 204) return null;
    const page = this.#parseOrThrow(res, UpdatePageSchema, 'GET /updates', 'an update page');
    const seen = recipientFromPage(page);
    if (seen !== undefined) this.#recipient = seen;
    return page;
  }

  /**
   * The poll loop as an async iterator of messages and receipts (spec "Client poll loop rules").
   * See {@link PollOptions} for offsets, persistence, de-duplication and failure handling.
   *
   * ```ts
   * for await (const event of client.poll({ offsetStore })) {
   *   if (event.kind === 'message') await handle(event.message);
   * }
   * ```
   */
  poll(options: PollOptions = {}, call: CallOptions = {}): AsyncGenerator<PollEvent, void, undefined> {
    return pollLoop(
      {
        getUpdates: (params, signal) => this.getUpdates(params, { signal }),
        backoff: this.backoff,
        handled: this.handled,
      },
      options,
      call.signal,
    );
  }

  // -------------------------------------------------------------------------------------------
  // Statuses
  // -------------------------------------------------------------------------------------------

  /** Marks an inbound message read (it then leaves the update buffer); resolves to the ack's `success`. */
  markRead(messageId: string, call: CallOptions = {}): Promise<boolean> {
    return this.#status(messageId, false, call);
  }

  /**
   * Shows a typing indicator in reply to an inbound message (which it also marks read); resolves to
   * the ack's `success`. Paced on its own counter.
   */
  sendTyping(messageId: string, call: CallOptions = {}): Promise<boolean> {
    return this.#status(messageId, true, call);
  }

  async #status(messageId: string, typing: boolean, call: CallOptions): Promise<boolean> {
    requireNonEmptyString(messageId, 'The message id');
    const target = 'POST /statuses';
    return this.#call(call.signal, async (signal, state) => {
      const res = await this.#execute({
        kind: 'repeatable',
        endpoint: typing ? 'typing' : 'statuses',
        method: 'POST',
        url: this.#url('/statuses'),
        json: statusBody(messageId, typing),
        readTimeoutMs: this.#timeoutMs,
        maxResponseBytes: MAX_JSON_BYTES,
        signal,
        state,
      });
      return this.#parseOrThrow(res, AckSchema, target, 'an acknowledgement').success;
    });
  }

  // -------------------------------------------------------------------------------------------
  // Media
  // -------------------------------------------------------------------------------------------

  /** Uploads a file; resolves to its media id, to send with sendImage() etc. Media expires after 30 days. */
  async uploadMedia(
    data: Uint8Array | ArrayBuffer,
    options: UploadMediaOptions,
    call: CallOptions = {},
  ): Promise<string> {
    if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) {
      throw new ValidationError('uploadMedia() needs the file as a Uint8Array, Buffer or ArrayBuffer.');
    }
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    const mimeType = normalizeMimeType(requireNonEmptyString(options?.mimeType, 'mimeType'));
    if (this.#validate) checkUpload(bytes, mimeType, this.#mediaRules);
    const filename = options.filename ?? 'file';
    return this.#call(call.signal, async (signal, state) => {
      const res = await this.#execute({
        kind: 'repeatable',
        endpoint: 'mediaUpload',
        method: 'POST',
        url: this.#url('/media'),
        form: () => {
          const form = new FormData();
          form.append(MEDIA_UPLOAD_FIELDS.file, new Blob([bytes], { type: mimeType }), filename);
          form.append(MEDIA_UPLOAD_FIELDS.type, mimeType);
          form.append(MEDIA_UPLOAD_FIELDS.messagingProduct, MESSAGING_PRODUCT);
          return form;
        },
        readTimeoutMs: this.#timeoutMs + bytes.byteLength * UPLOAD_MS_PER_BYTE,
        maxResponseBytes: MAX_JSON_BYTES,
        signal,
        state,
      });
      const uploaded = this.#parseOrThrow(res, MediaUploadResponseSchema, 'POST /media', 'an upload answer');
      this.#uploaded.set(uploaded.id, mimeType);
      if (this.#uploaded.size > 1000) this.#uploaded.delete(this.#uploaded.keys().next().value as string);
      return uploaded.id;
    });
  }

  /** Metadata of a media item (url, mime_type, sha256, file_size). */
  async getMedia(mediaId: string, call: CallOptions = {}): Promise<MediaMetadata> {
    requireNonEmptyString(mediaId, 'The media id');
    return this.#call(call.signal, (signal, state) => this.#getMedia(mediaId, signal, state));
  }

  async #getMedia(mediaId: string, signal: AbortSignal, state: CallState): Promise<MediaMetadata> {
    const res = await this.#execute({
      kind: 'repeatable',
      endpoint: 'mediaGet',
      method: 'GET',
      url: this.#url(`/media/${encodeURIComponent(mediaId)}`),
      readTimeoutMs: this.#timeoutMs,
      maxResponseBytes: MAX_JSON_BYTES,
      signal,
      state,
    });
    return this.#parseOrThrow(res, MediaMetadataSchema, 'GET /media/<id>', 'media metadata');
  }

  /** Deletes a media item; resolves to the service's `success` (false: it was not deleted). */
  async deleteMedia(mediaId: string, call: CallOptions = {}): Promise<boolean> {
    requireNonEmptyString(mediaId, 'The media id');
    return this.#call(call.signal, async (signal, state) => {
      const res = await this.#execute({
        kind: 'repeatable',
        endpoint: 'mediaDelete',
        method: 'DELETE',
        url: this.#url(`/media/${encodeURIComponent(mediaId)}`),
        readTimeoutMs: this.#timeoutMs,
        maxResponseBytes: MAX_JSON_BYTES,
        signal,
        state,
      });
      return this.#parseOrThrow(res, AckSchema, 'DELETE /media/<id>', 'an acknowledgement').success;
    });
  }

  /**
   * Downloads media by id (metadata first, then its url) or by a media url, with the bearer header.
   * Checks the SHA-256 (given, or from the metadata) and the metadata's file size. The token is
   * only sent over https, or to the origin of `baseUrl`.
   */
  async downloadMedia(
    idOrUrl: string,
    options: DownloadMediaOptions = {},
    call: CallOptions = {},
  ): Promise<DownloadedMedia> {
    requireNonEmptyString(idOrUrl, 'The media id or url');
    return this.#call(call.signal, async (signal, state) => {
      const byUrl = /^https?:\/\//i.test(idOrUrl);
      const metadata = byUrl ? undefined : await this.#getMedia(idOrUrl, signal, state);
      const url = new URL(metadata?.url ?? idOrUrl, `${this.#baseUrl}/`);
      const base = new URL(this.#baseUrl);
      if (url.protocol !== 'https:' && url.origin !== base.origin) {
        throw new ValidationError(
          `Refusing to download ${url.origin}: it is neither https nor the service's origin, and the request ` +
            'would carry the token in clear text.',
        );
      }
      const res = await this.#execute({
        kind: 'repeatable',
        endpoint: undefined,
        method: 'GET',
        url,
        readTimeoutMs: this.#timeoutMs,
        maxResponseBytes: this.#maxDownloadBytes,
        signal,
        state,
      });
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

  // -------------------------------------------------------------------------------------------
  // Lifecycle
  // -------------------------------------------------------------------------------------------

  /**
   * Closes the client: queued and in-flight calls fail with ClientClosedError, poll loops end, and
   * the client's own dispatcher is closed (a supplied `dispatcher` is left open). Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#lifetime.abort(new ClientClosedError('The client was closed.'));
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  // -------------------------------------------------------------------------------------------
  // Machinery
  // -------------------------------------------------------------------------------------------

  #url(path: string): URL {
    return new URL(`${this.#baseUrl}${path}`);
  }

  /** Runs one public call: links its signal to the client's lifetime and names abort outcomes. */
  async #call<T>(
    userSignal: AbortSignal | undefined,
    fn: (signal: AbortSignal, state: CallState) => Promise<T>,
  ): Promise<T> {
    if (this.#closed) throw new ClientClosedError('The client is closed; create a new one.');
    const { signal, dispose } = linkSignals(this.#lifetime.signal, userSignal);
    const state: CallState = { mayHaveLanded: false };
    try {
      return await fn(signal, state);
    } catch (err) {
      if (signal.aborted && err === signal.reason) {
        if (this.#lifetime.signal.aborted)
          throw new ClientClosedError('The client was closed during the call.');
        throw new RequestAbortedError(
          state.mayHaveLanded
            ? 'The call was aborted after its request left; it may have taken effect (a send may have been ' +
                'delivered). Treat a send as ambiguous.'
            : 'The call was aborted before its request left; nothing was sent.',
          state.mayHaveLanded,
          err,
        );
      }
      throw err;
    } finally {
      dispose();
    }
  }

  /** Sends `req` with pacing and retries; resolves to a 2xx answer, else throws the classified error. */
  async #execute(req: Request): Promise<HttpResponse> {
    const target = `${req.method} ${req.url.pathname}`;
    let rateLimited = 0;
    for (let retry = 0; ; retry++) {
      let classified;
      try {
        const res = await this.#paced(req.endpoint, () => this.#attempt(req), req.signal);
        if (res.status >= 200 && res.status < 300) return res;
        classified = classifyAnswer(req.kind, target, res, readAnswer(res, this.#token), {
          retrySendOnServerError: this.#retrySendOnServerError,
          isPoll: req.isPoll ?? false,
        });
      } catch (err) {
        if (!(err instanceof TransportError || err instanceof UnexpectedResponseError)) throw err;
        classified = classifyFailure(req.kind, target, err, {
          retrySendOnServerError: this.#retrySendOnServerError,
        });
      }
      if (classified.mayHaveLanded) req.state.mayHaveLanded = true;
      if (!classified.retryable || retry >= this.#maxRetries) throw classified.error;
      let delay: number;
      if (classified.error instanceof RateLimitError) {
        delay = classified.retryAfterMs ?? rateLimitBackoffMs(rateLimited, this.backoff);
        rateLimited += 1;
      } else {
        delay = exponentialBackoffMs(retry, this.backoff);
      }
      await sleep(delay, req.signal);
    }
  }

  #paced<T>(endpoint: PacedEndpoint | undefined, fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const limiter = endpoint === undefined ? undefined : this.#limiters?.[endpoint];
    return limiter ? limiter.run(fn, signal) : fn();
  }

  async #attempt(req: Request): Promise<HttpResponse> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
    };
    if (this.#userAgent !== undefined) headers['user-agent'] = this.#userAgent;
    let body: string | FormData | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form) {
      body = req.form();
    }
    try {
      return await httpExchange(this.#dispatcher, {
        method: req.method,
        url: req.url,
        headers,
        body,
        readTimeoutMs: req.readTimeoutMs,
        signal: req.signal,
        maxResponseBytes: req.maxResponseBytes,
        connectHint:
          this.#baseUrl === DEFAULT_BASE_URL
            ? 'baseUrl is the placeholder default; set it to the service address.'
            : undefined,
      });
    } catch (err) {
      // Aborted after the request was handed to the connection: it may have taken effect.
      if (req.signal.aborted) req.state.mayHaveLanded = true;
      throw err;
    }
  }

  #parseJson<S extends z.ZodTypeAny>(
    res: HttpResponse,
    schema: S,
  ): { ok: true; data: z.infer<S> } | { ok: false; problem: string; raw: string } {
    const raw = readAnswer(res, this.#token).raw;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { ok: false, problem: raw.length === 0 ? 'empty body' : 'not JSON', raw };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, problem: `${issue.path.join('.') || 'body'}: ${issue.message}`, raw };
    }
    return { ok: true, data: parsed.data as z.infer<S> };
  }

  #parseOrThrow<S extends z.ZodTypeAny>(
    res: HttpResponse,
    schema: S,
    target: string,
    what: string,
  ): z.infer<S> {
    const parsed = this.#parseJson(res, schema);
    if (parsed.ok) return parsed.data;
    throw new UnexpectedResponseError(
      `${target} answered ${res.status} with a body that is not ${what} (${parsed.problem}). The raw body is ` +
        'on the error; the service may have changed or a proxy answered.',
      res.status,
      parsed.raw,
    );
  }
}

/** `promise`, or a rejection with `signal.reason` as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function sha256Matches(expected: string, data: Buffer, hex: string): boolean {
  const e = expected.trim();
  if (/^[0-9a-f]{64}$/i.test(e)) return e.toLowerCase() === hex;
  const b64 = createHash('sha256').update(data).digest('base64');
  const normalise = (s: string): string => s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  return normalise(e) === normalise(b64);
}
