/**
 * POST /messages (spec 4.1). Sends go through one queue, one at a time in call order, because the
 * spec forbids concurrent sends to the recipient; and an unreadable 2xx is ambiguous rather than
 * unexpected, because the message was accepted and repeating it would deliver it twice.
 */
import type { CallOptions, ResolvedClientOptions } from './client-options';
import { AmbiguousSendError } from './errors';
import type { RecipientTracker } from './recipient';
import type { RequestExecutor } from './request-executor';
import {
  type MediaKind,
  mediaPayload,
  replyContext,
  type SendResponse,
  SendResponseSchema,
  sendResponseRecipient,
} from './schemas';
import { SerialQueue } from './serial-queue';
import {
  checkCaption,
  checkMediaKind,
  checkOutgoing,
  checkRecipient,
  requireNonEmptyString,
} from './validation';

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

/** What sends need besides the executor and the recipient. */
export interface SenderSettings extends Pick<ResolvedClientOptions, 'validate' | 'mediaRules'> {
  /** The MIME type a media id was uploaded with by this client, for the send-kind check. */
  uploadedMimeType: (mediaId: string) => string | undefined;
}

/** The sends of one client, queued. */
export class MessageSender {
  readonly #executor: RequestExecutor;
  readonly #recipient: RecipientTracker;
  readonly #settings: SenderSettings;
  readonly #queue = new SerialQueue();

  constructor(executor: RequestExecutor, recipient: RecipientTracker, settings: SenderSettings) {
    this.#executor = executor;
    this.#recipient = recipient;
    this.#settings = settings;
  }

  /** Sends an uploaded media item as a `kind` message, after the caption and kind checks. */
  async sendMedia(
    kind: MediaKind,
    mediaId: string,
    options: SendOptions,
    extras: { caption?: string; filename?: string },
    call: CallOptions,
  ): Promise<SendResult> {
    requireNonEmptyString(mediaId, 'The media id');
    if (this.#settings.validate) {
      checkCaption(kind, extras.caption);
      checkMediaKind(kind, this.#settings.uploadedMimeType(mediaId), this.#settings.mediaRules);
    }
    return this.send({ type: kind, [kind]: mediaPayload(mediaId, extras) }, options, call);
  }

  /** Sends `message` (a body without `to`) to `options.to`, else to the known or discovered recipient. */
  async send(message: Record<string, unknown>, options: SendOptions, call: CallOptions): Promise<SendResult> {
    const { to, replyTo } = options;
    const body: Record<string, unknown> = { ...message };
    if (replyTo !== undefined) {
      requireNonEmptyString(replyTo, 'replyTo (the message id to quote)');
      body.context = replyContext(replyTo);
    }
    if (this.#settings.validate) {
      if (to !== undefined) checkRecipient(to);
      checkOutgoing(body);
    }
    return this.#executor.call(call.signal, (ctx) =>
      this.#queue.run(async () => {
        const recipient = to ?? (await this.#recipient.resolve(ctx.signal));
        const res = await this.#executor.execute(
          {
            kind: 'send',
            endpoint: 'messages',
            method: 'POST',
            url: this.#executor.url('/messages'),
            json: { to: recipient, ...body },
          },
          ctx,
        );
        const parsed = this.#executor.parse(res, SendResponseSchema);
        if (!parsed.ok) {
          throw new AmbiguousSendError(
            `POST /messages answered ${res.status} with a body that is not a send result (${parsed.problem}); ` +
              'the service accepted the message but its id is unknown. Do not repeat it.',
            'malformed_response',
            { status: res.status, body: parsed.raw },
          );
        }
        const seen = sendResponseRecipient(parsed.data);
        this.#recipient.learn(seen);
        return { messageId: parsed.data.messages[0].id, recipient: seen ?? recipient, raw: parsed.data };
      }, ctx.signal),
    );
  }
}
