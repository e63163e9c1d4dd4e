/**
 * Every wire shape of the Agent Messaging Service, in one module.
 *
 * The spec leaves several members "not shown"; amsflow follows the WhatsApp Cloud API conventions
 * recorded in shared/WIRE-CONVENTIONS.md for them. Each of those choices lives here and nowhere
 * else (member names, constants, multipart field names, the body builders), so that a correction
 * is a one-line change. Response schemas are loose (`passthrough`) wherever the wire may grow:
 * unknown members and unknown message types reach the caller untouched.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Constants and names the spec does not show (WIRE-CONVENTIONS)
// ---------------------------------------------------------------------------------------------

/**
 * Value sent in `messaging_product` (POST /statuses, POST /media). The spec calls it a constant
 * without showing it; amsflow uses the simulator's value. Responses echo a constant that is never
 * relied on.
 */
export const MESSAGING_PRODUCT = 'agent_messaging';

/** `error.code` of a bad or missing token (answered with HTTP 401). */
export const AUTH_ERROR_CODE = 190;
/** `error.code` of a rate-limit rejection (HTTP 429). */
export const RATE_LIMIT_ERROR_CODE = 130429;
/** `error.code` of "message not accepted for delivery" (HTTP 503): nothing was sent. */
export const NOT_ACCEPTED_ERROR_CODE = 131016;

/** Field names of the multipart body of POST /media. */
export const MEDIA_UPLOAD_FIELDS = {
  file: 'file',
  type: 'type',
  messagingProduct: 'messaging_product',
} as const;

/** Query parameter names of GET /updates (spec 4.2). */
export const UPDATES_QUERY = { offset: 'offset', limit: 'limit', timeout: 'timeout' } as const;

/** The `field` of an update change that carries message traffic (spec 2.4). */
export const MESSAGES_FIELD = 'messages';

/** Outbound message types the service accepts (spec 4.1). */
export const OUTBOUND_TYPES = ['text', 'image', 'video', 'audio', 'document', 'sticker'] as const;
/** Inbound message types the spec lists (2.2); others pass through untouched. */
export const INBOUND_TYPES = [...OUTBOUND_TYPES, 'reaction'] as const;
/** Media kinds: the outbound types that reference an uploaded media id. */
export const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];
/** Media kinds whose payload object may carry a caption (spec 4.1). */
export const CAPTIONED_KINDS: readonly MediaKind[] = ['image', 'video', 'document'];

/** Receipt status values WIRE-CONVENTIONS names; others pass through. */
export const KNOWN_STATUS_VALUES = ['sent', 'delivered', 'read', 'failed'] as const;
export type KnownStatusValue = (typeof KNOWN_STATUS_VALUES)[number];

// ---------------------------------------------------------------------------------------------
// Outbound: POST /messages request bodies
// ---------------------------------------------------------------------------------------------

/** Top-level quoting member of a send: `context.message_id` is the quoted wamid. */
export const SendContextSchema = z.object({ message_id: z.string() }).passthrough();
export type SendContext = z.infer<typeof SendContextSchema>;

export const TextPayloadSchema = z
  .object({ body: z.string(), preview_url: z.boolean().optional() })
  .passthrough();
export type TextPayload = z.infer<typeof TextPayloadSchema>;

/** Image and video: a media id and an optional caption. */
export const CaptionedMediaPayloadSchema = z
  .object({ id: z.string(), caption: z.string().optional() })
  .passthrough();
export type CaptionedMediaPayload = z.infer<typeof CaptionedMediaPayloadSchema>;

/** Document: a media id, an optional caption and an optional filename (keeps the extension). */
export const DocumentPayloadSchema = CaptionedMediaPayloadSchema.extend({
  filename: z.string().optional(),
}).passthrough();
export type DocumentPayload = z.infer<typeof DocumentPayloadSchema>;

/** Audio and sticker: the media id only. */
export const BareMediaPayloadSchema = z.object({ id: z.string() }).passthrough();
export type BareMediaPayload = z.infer<typeof BareMediaPayloadSchema>;

const sendBase = {
  to: z.string(),
  context: SendContextSchema.optional(),
};

export const SendTextRequestSchema = z
  .object({ ...sendBase, type: z.literal('text'), text: TextPayloadSchema })
  .passthrough();
export const SendImageRequestSchema = z
  .object({ ...sendBase, type: z.literal('image'), image: CaptionedMediaPayloadSchema })
  .passthrough();
export const SendVideoRequestSchema = z
  .object({ ...sendBase, type: z.literal('video'), video: CaptionedMediaPayloadSchema })
  .passthrough();
export const SendDocumentRequestSchema = z
  .object({ ...sendBase, type: z.literal('document'), document: DocumentPayloadSchema })
  .passthrough();
export const SendAudioRequestSchema = z
  .object({ ...sendBase, type: z.literal('audio'), audio: BareMediaPayloadSchema })
  .passthrough();
export const SendStickerRequestSchema = z
  .object({ ...sendBase, type: z.literal('sticker'), sticker: BareMediaPayloadSchema })
  .passthrough();

/** Any send body: `type` names the payload object; unknown types pass through as given. */
export const SendRequestSchema = z.object({ ...sendBase, type: z.string() }).passthrough();
export type SendRequest = z.infer<typeof SendRequestSchema>;

/**
 * A message for `MessagingClient.send`: the wire body with `to` optional (the client fills it in
 * from the known recipient). `type` names the payload object, e.g. `{ type: 'text', text: { body } }`.
 * `send` also takes payloads of types this client does not know (`{ type: 'x', x: {...} }`) and
 * passes them through as given. No index signature, so that `Omit<OutgoingMessage, 'to'>` keeps the
 * members.
 */
export interface OutgoingMessage {
  to?: string;
  type: string;
  context?: SendContext;
  text?: TextPayload;
  image?: CaptionedMediaPayload;
  video?: CaptionedMediaPayload;
  audio?: BareMediaPayload;
  document?: DocumentPayload;
  sticker?: BareMediaPayload;
}

// ---------------------------------------------------------------------------------------------
// Outbound: POST /statuses and POST /media
// ---------------------------------------------------------------------------------------------

/** Mark read (and, with `typing_indicator`, show typing) by inbound message id. */
export const StatusRequestSchema = z.object({
  messaging_product: z.string(),
  status: z.literal('read'),
  message_id: z.string(),
  typing_indicator: z.object({ type: z.literal('text') }).optional(),
});
export type StatusRequest = z.infer<typeof StatusRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Inbound: responses
// ---------------------------------------------------------------------------------------------

/** Error object of every error response (spec 7). Only `code` is relied on. */
export const ErrorObjectSchema = z
  .object({
    code: z.number(),
    message: z.string().optional(),
    type: z.string().optional(),
    error_data: z.object({ details: z.string().optional() }).passthrough().optional(),
    fbtrace_id: z.string().optional(),
  })
  .passthrough();
export type ErrorObject = z.infer<typeof ErrorObjectSchema>;
export const ErrorBodySchema = z.object({ error: ErrorObjectSchema }).passthrough();
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Send result (2.6). `messages[0].id` is the wamid to record. */
export const SendResponseSchema = z
  .object({
    messaging_product: z.string().optional(),
    contacts: z.array(z.object({ input: z.string().optional(), wa_id: z.string() }).passthrough()).optional(),
    messages: z
      .array(z.object({ id: z.string().min(1), message_status: z.string().optional() }).passthrough())
      .min(1),
  })
  .passthrough();
export type SendResponse = z.infer<typeof SendResponseSchema>;

/** Contact of a poll page (2.3). */
export const ContactSchema = z
  .object({
    wa_id: z.string(),
    profile: z.object({ name: z.string().optional() }).passthrough().optional(),
  })
  .passthrough();
export type Contact = z.infer<typeof ContactSchema>;

export const InboundTextSchema = z.object({ body: z.string() }).passthrough();
/** Inbound media object: audio may carry `voice`, sticker `animated`. */
export const InboundMediaSchema = z
  .object({
    id: z.string(),
    mime_type: z.string().optional(),
    sha256: z.string().optional(),
    caption: z.string().optional(),
    filename: z.string().optional(),
    voice: z.boolean().optional(),
    animated: z.boolean().optional(),
  })
  .passthrough();
export type InboundMedia = z.infer<typeof InboundMediaSchema>;
/** An empty or absent emoji removes a reaction. */
export const InboundReactionSchema = z
  .object({ message_id: z.string(), emoji: z.string().optional() })
  .passthrough();
export type InboundReaction = z.infer<typeof InboundReactionSchema>;
/** `context` of a quoting message: `from` is the author of the quoted message, `id` its wamid. */
export const InboundContextSchema = z
  .object({ from: z.string().optional(), id: z.string().optional() })
  .passthrough();

/** The members of an inbound message (2.2); {@link InboundMessageSchema} adds one rule. */
export const InboundMessageShapeSchema = z
  .object({
    from: z.string(),
    id: z.string(),
    timestamp: z.string(),
    type: z.string(),
    context: InboundContextSchema.optional(),
    text: InboundTextSchema.optional(),
    image: InboundMediaSchema.optional(),
    video: InboundMediaSchema.optional(),
    audio: InboundMediaSchema.optional(),
    document: InboundMediaSchema.optional(),
    sticker: InboundMediaSchema.optional(),
    reaction: InboundReactionSchema.optional(),
  })
  .passthrough();
export type InboundMessage = z.infer<typeof InboundMessageShapeSchema>;

/**
 * Inbound message (2.2). Loose: a message of a type this client does not know keeps its payload
 * object (named after `type`) as given. A known type must carry its payload object. (Annotated, so
 * that the page schemas built on it keep a type the compiler can emit.)
 */
export const InboundMessageSchema: z.ZodType<InboundMessage, z.ZodTypeDef, unknown> =
  InboundMessageShapeSchema.superRefine((msg, ctx) => {
    if ((INBOUND_TYPES as readonly string[]).includes(msg.type) && msg[msg.type] === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `message of type ${msg.type} has no ${msg.type} object`,
      });
    }
  });

/** Delivery receipt (2.5). Unknown status values pass through. */
export const StatusSchema = z
  .object({
    id: z.string(),
    status: z.string(),
    timestamp: z.string().optional(),
    recipient_id: z.string().optional(),
    errors: z.array(z.unknown()).optional(),
  })
  .passthrough();
export type Status = z.infer<typeof StatusSchema>;

/** `value` of a change. The arrays may be absent when empty. */
export const ChangeValueSchema = z
  .object({
    messaging_product: z.string().optional(),
    contacts: z.array(ContactSchema).optional(),
    messages: z.array(InboundMessageSchema).optional(),
    statuses: z.array(StatusSchema).optional(),
  })
  .passthrough();
export type ChangeValue = z.infer<typeof ChangeValueSchema>;

export const ChangeSchema = z.object({ field: z.string(), value: ChangeValueSchema }).passthrough();
export const EntrySchema = z.object({ id: z.string(), changes: z.array(ChangeSchema) }).passthrough();

/** Update page: the body of a 200 answer to GET /updates (2.4). */
export const UpdatePageSchema = z
  .object({
    object: z.string().optional(),
    entry: z.array(EntrySchema),
    // Safe: the next poll sends it back, and an offset beyond 2^53 cannot be sent exactly.
    next_offset: z.number().int().nonnegative().safe(),
  })
  .passthrough();
export type UpdatePage = z.infer<typeof UpdatePageSchema>;

/** Acknowledgement of POST /statuses and DELETE /media/<id> (2.8). */
export const AckSchema = z.object({ success: z.boolean() }).passthrough();
export type Ack = z.infer<typeof AckSchema>;

/** Answer of POST /media. */
export const MediaUploadResponseSchema = z.object({ id: z.string().min(1) }).passthrough();
export type MediaUploadResponse = z.infer<typeof MediaUploadResponseSchema>;

/** Metadata of GET /media/<id>. `file_size` may be a string or a number on the wire. */
export const MediaMetadataSchema = z
  .object({
    messaging_product: z.string().optional(),
    id: z.string(),
    url: z.string().min(1),
    mime_type: z.string(),
    sha256: z.string().optional(),
    file_size: z.union([z.string(), z.number()]).optional(),
  })
  .passthrough();
export type MediaMetadata = z.infer<typeof MediaMetadataSchema>;

// ---------------------------------------------------------------------------------------------
// Body builders: the only places outbound wire members are named
// ---------------------------------------------------------------------------------------------

/** Quoting member for a send that replies to `messageId`. */
export function replyContext(messageId: string): SendContext {
  return { message_id: messageId };
}

/** Payload object of a media send: the uploaded media id, plus caption and filename when given. */
export function mediaPayload(
  mediaId: string,
  extras: { caption?: string; filename?: string },
): DocumentPayload {
  const payload: DocumentPayload = { id: mediaId };
  if (extras.caption !== undefined) payload.caption = extras.caption;
  if (extras.filename !== undefined) payload.filename = extras.filename;
  return payload;
}

/** Body of POST /statuses marking `messageId` read, optionally with a typing indicator. */
export function statusBody(messageId: string, typing: boolean): StatusRequest {
  const body: StatusRequest = { messaging_product: MESSAGING_PRODUCT, status: 'read', message_id: messageId };
  if (typing) body.typing_indicator = { type: 'text' };
  return body;
}

/** The recipient the service answered a send with (first contact's `wa_id`), if any. */
export function sendResponseRecipient(res: SendResponse): string | undefined {
  return res.contacts?.[0]?.wa_id;
}

/** `file_size` of media metadata as a number, when it is a decimal count. */
export function mediaFileSize(meta: MediaMetadata): number | undefined {
  const raw = meta.file_size;
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'string' && /^\d+$/.test(raw.trim())) return Number(raw.trim());
  return undefined;
}
