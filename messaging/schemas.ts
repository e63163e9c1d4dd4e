/**
 * Every wire shape of the Agent Messaging Service, in one module: this one (the request bodies and
 * their builders) with the two it re-exports, messaging/wire-constants.ts (names and constants)
 * and messaging/response-schemas.ts (responses). Import them from here.
 *
 * The spec leaves several members "not shown"; amsflow follows the WhatsApp Cloud API conventions
 * recorded in shared/WIRE-CONVENTIONS.md for them. Each of those choices lives here and nowhere
 * else (member names, constants, multipart field names, the body builders), so that a correction
 * is a one-line change. Response schemas are loose (`passthrough`) wherever the wire may grow:
 * unknown members and unknown message types reach the caller untouched.
 */
import { z } from 'zod';
import type { MediaMetadata, SendResponse } from './response-schemas';
import { MESSAGING_PRODUCT } from './wire-constants';

export * from './wire-constants';
export * from './response-schemas';

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
