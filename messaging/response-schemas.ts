/**
 * The zod schemas of the service's responses (spec 2 and 7): loose (`passthrough`) wherever the
 * wire may grow, so unknown members and unknown message types reach the caller untouched.
 * Imported through messaging/schemas.ts (the one module of wire shapes).
 */
import { z } from 'zod';
import { INBOUND_TYPES } from './wire-constants';

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
