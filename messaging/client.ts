/**
 * MessagingClient: the Agent Messaging Service's HTTP client, following every client rule of the
 * spec (sections 4-8): pacing, retries, send-outcome classification, local checks, recipient
 * discovery and a poll loop. Usable on its own; activities reach the service only through it.
 *
 * This file only composes the parts (options, request executor, recipient, sends, updates,
 * statuses, media) and holds the public surface, so each rule lives in one file of its own.
 */
import type { BackoffSettings } from '../core/backoff';
import { type CallOptions, type MessagingClientOptions, resolveClientOptions } from './client-options';
import { ValidationError } from './errors';
import type { Limits } from './limits';
import {
  type DownloadedMedia,
  type DownloadMediaOptions,
  MediaClient,
  type UploadMediaOptions,
} from './media-client';
import {
  MessageSender,
  type SendCaptionedOptions,
  type SendDocumentOptions,
  type SendOptions,
  type SendResult,
  type SendTextOptions,
} from './message-sender';
import type { MemberReading } from './page-members';
import { type PollEvent, type PollOptions, pollLoop } from './poll';
import { RecentIds } from './recent-ids';
import { RecipientTracker } from './recipient';
import { RequestExecutor } from './request-executor';
import type { MediaMetadata, OutgoingMessage, UpdatePage } from './schemas';
import { postStatus } from './statuses';
import { fetchUpdates, type GetUpdatesParams } from './updates';
import { checkUpdatesParams, requireNonEmptyString } from './validation';

// The public types stay importable from here, where they were first defined.
export { DEFAULT_BASE_URL, type CallOptions, type MessagingClientOptions } from './client-options';
export type { DownloadedMedia, DownloadMediaOptions, UploadMediaOptions } from './media-client';
export type {
  SendCaptionedOptions,
  SendDocumentOptions,
  SendOptions,
  SendResult,
  SendTextOptions,
} from './message-sender';
export type { GetUpdatesParams } from './updates';

/**
 * The service client. Safe to share: calls may run concurrently; sends are queued and issued one
 * at a time in call order; each endpoint is paced to its window.
 */
export class MessagingClient {
  readonly #executor: RequestExecutor;
  readonly #recipient: RecipientTracker;
  readonly #sender: MessageSender;
  readonly #media: MediaClient;
  readonly #reading: MemberReading;

  /** Backoff settings (read by the poll loop). */
  readonly backoff: BackoffSettings;
  /** Ids handled by this client's poll loops (for de-duplication). */
  readonly handled = new RecentIds(10_000);
  /** The effective limits. */
  readonly limits: Readonly<Limits>;

  constructor(options: MessagingClientOptions) {
    const resolved = resolveClientOptions(options);
    this.backoff = resolved.backoff;
    this.limits = resolved.limits;
    const executor = new RequestExecutor(resolved);
    const reading = { unreadableRawBytes: resolved.unreadableRawBytes };
    this.#reading = reading;
    const recipient: RecipientTracker = new RecipientTracker({
      initial: resolved.recipient,
      autoDiscover: resolved.autoDiscover,
      discoveryPoll: () =>
        fetchUpdates(executor, recipient, { offset: 0, timeout: 0 }, reading, executor.detachedContext()),
    });
    const media = new MediaClient(executor, resolved);
    this.#executor = executor;
    this.#recipient = recipient;
    this.#media = media;
    this.#sender = new MessageSender(executor, recipient, {
      validate: resolved.validate,
      mediaRules: resolved.mediaRules,
      uploadedMimeType: (mediaId) => media.uploadedMimeType(mediaId),
    });
  }

  /** The recipient last seen on a poll or a send (or given), or undefined when none is known yet. */
  get recipient(): string | undefined {
    return this.#recipient.current;
  }

  /** True once this client has issued a GET /updates (it will then never run a discovery poll). */
  get hasPolled(): boolean {
    return this.#recipient.hasPolled;
  }

  // Sends

  /** Sends a text message (up to 4096 characters). */
  sendText(body: string, options: SendTextOptions = {}, call: CallOptions = {}): Promise<SendResult> {
    const text: Record<string, unknown> = { body };
    if (options.previewUrl !== undefined) text.preview_url = options.previewUrl;
    return this.#sender.send({ type: 'text', text }, options, call);
  }

  /** Sends an uploaded image (JPEG or PNG) with an optional caption. */
  sendImage(
    mediaId: string,
    options: SendCaptionedOptions = {},
    call: CallOptions = {},
  ): Promise<SendResult> {
    return this.#sender.sendMedia('image', mediaId, options, { caption: options.caption }, call);
  }

  /** Sends an uploaded video (MP4 or 3GPP) with an optional caption. */
  sendVideo(
    mediaId: string,
    options: SendCaptionedOptions = {},
    call: CallOptions = {},
  ): Promise<SendResult> {
    return this.#sender.sendMedia('video', mediaId, options, { caption: options.caption }, call);
  }

  /** Sends an uploaded audio file (no caption). */
  sendAudio(mediaId: string, options: SendOptions = {}, call: CallOptions = {}): Promise<SendResult> {
    return this.#sender.sendMedia('audio', mediaId, options, {}, call);
  }

  /** Sends an uploaded document with an optional caption and filename. */
  sendDocument(
    mediaId: string,
    options: SendDocumentOptions = {},
    call: CallOptions = {},
  ): Promise<SendResult> {
    const extras = { caption: options.caption, filename: options.filename };
    return this.#sender.sendMedia('document', mediaId, options, extras, call);
  }

  /** Sends an uploaded sticker (WebP, no caption). */
  sendSticker(mediaId: string, options: SendOptions = {}, call: CallOptions = {}): Promise<SendResult> {
    return this.#sender.sendMedia('sticker', mediaId, options, {}, call);
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
    return this.#sender.send(rest, { to }, call);
  }

  // Recipient

  /**
   * Finds the recipient. Returns the known one without a request; otherwise, on a client that has
   * never polled, runs the one discovery poll (`offset=0&timeout=0`). Fails with a ValidationError
   * when no recipient can be known yet.
   */
  discoverRecipient(call: CallOptions = {}): Promise<string> {
    return this.#executor.call(call.signal, (ctx) => this.#recipient.resolve(ctx.signal));
  }

  // Updates

  /**
   * One GET /updates. Resolves to the page, or null on 204 (no traffic before the timeout: poll the
   * same offset again). Learns the recipient from the page. Only one poll per agent may run: a newer
   * one makes this one fail with PollReplacedError. A member that does not fit its schema does not
   * fail the page: a message comes as type `unknown`, and `misfits` lists each (page-members.ts).
   */
  async getUpdates(params: GetUpdatesParams = {}, call: CallOptions = {}): Promise<UpdatePage | null> {
    const { offset, limit, timeout, maxBytes } = params;
    checkUpdatesParams({ offset, limit, timeout, maxBytes });
    return this.#executor.call(call.signal, (ctx) =>
      fetchUpdates(this.#executor, this.#recipient, { offset, limit, timeout, maxBytes }, this.#reading, ctx),
    );
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

  // Statuses

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
    return this.#executor.call(call.signal, (ctx) => postStatus(this.#executor, messageId, typing, ctx));
  }

  // Media

  /** Uploads a file; resolves to its media id, to send with sendImage() etc. Media expires after 30 days. */
  async uploadMedia(
    data: Uint8Array | ArrayBuffer,
    options: UploadMediaOptions,
    call: CallOptions = {},
  ): Promise<string> {
    return this.#media.upload(data, options, call);
  }

  /** Metadata of a media item (url, mime_type, sha256, file_size). */
  async getMedia(mediaId: string, call: CallOptions = {}): Promise<MediaMetadata> {
    return this.#media.get(mediaId, call);
  }

  /** Deletes a media item; resolves to the service's `success` (false: it was not deleted). */
  async deleteMedia(mediaId: string, call: CallOptions = {}): Promise<boolean> {
    return this.#media.delete(mediaId, call);
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
    return this.#media.download(idOrUrl, options, call);
  }

  // Lifecycle

  /**
   * Closes the client: queued and in-flight calls fail with ClientClosedError, poll loops end, and
   * the client's own dispatcher is closed (a supplied `dispatcher` is left open). Idempotent.
   */
  async close(): Promise<void> {
    return this.#executor.close();
  }
}
