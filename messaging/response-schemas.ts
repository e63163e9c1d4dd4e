/**
 * The zod schemas of the service's responses (spec 2 and 7): loose (`passthrough`) wherever the
 * wire may grow, so unknown members and unknown message types reach the caller untouched.
 * Imported through messaging/schemas.ts (the one module of wire shapes).
 */
import { z } from 'zod';
import { INBOUND_TYPES, UNREADABLE_TYPE } from './wire-constants';

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

/**
 * What a message needs to be handed on at all, even as {@link UNREADABLE_TYPE}: an id to route it
 * by and mark it read (an empty one can be neither), its sender, its time.
 */
export const InboundEnvelopeSchema = z
  .object({ from: z.string(), id: z.string().min(1), timestamp: z.string() })
  .passthrough();

/** The members of an inbound message (2.2); {@link InboundMessageSchema} adds one rule. */
export const InboundMessageShapeSchema = InboundEnvelopeSchema.extend({
  type: z.string(),
  context: InboundContextSchema.optional(),
  text: InboundTextSchema.optional(),
  image: InboundMediaSchema.optional(),
  video: InboundMediaSchema.optional(),
  audio: InboundMediaSchema.optional(),
  document: InboundMediaSchema.optional(),
  sticker: InboundMediaSchema.optional(),
  reaction: InboundReactionSchema.optional(),
}).passthrough();
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

// ---------------------------------------------------------------------------------------------
// What the client adds to an inbound message it hands on other than as received: never wire
// members (page-members.ts, size-bounds.ts)
// ---------------------------------------------------------------------------------------------

/** The payload object (`unknown`) of a message handed on as {@link UNREADABLE_TYPE}. */
export const NotUnderstoodSchema = z.object({
  /** The message's `type` as received, when it was a string of at most 64 characters. */
  type: z.string().optional(),
  /** Where and why it did not fit (`image: expected object, got number`): paths and kinds, never values. */
  problems: z.array(z.string()),
  /** Its JSON size as received, bytes. */
  bytes: z.number().int().nonnegative(),
  /** The message as received, when `bytes` is within the client's `unreadableRawBytes`. */
  raw: z.record(z.unknown()).optional(),
});
export type NotUnderstood = z.infer<typeof NotUnderstoodSchema>;

/**
 * The marker (`truncated`) of an item (a message; a receipt) too large on its own for a poll
 * result, handed on cut (size-bounds.ts).
 */
export const TruncationSchema = z.object({
  /** The item's JSON size as received, bytes. */
  originalBytes: z.number().int().nonnegative(),
  /** The members cut short (`text.body`) or, for one handed on as `unknown`, left out; at most 20. */
  members: z.array(z.string()),
});
export type Truncation = z.infer<typeof TruncationSchema>;

/**
 * A message handed on although it does not fit its schema (spec 9: passed on, not refused), or
 * too large to be handed on even cut: what of its envelope is usable, and why it was not understood.
 */
export const UnreadableMessageSchema = z.object({
  from: z.string(),
  id: z.string().min(1),
  timestamp: z.string(),
  type: z.literal(UNREADABLE_TYPE),
  /** Its `context` as received, when that fits. */
  context: InboundContextSchema.optional(),
  unknown: NotUnderstoodSchema,
  truncated: TruncationSchema.optional(),
});
export type UnreadableMessage = z.infer<typeof UnreadableMessageSchema>;

/** A message cut to fit a poll result: its strings over the cut size end early. */
export type TruncatedMessage = InboundMessage & { truncated: Truncation };

/**
 * A page member that did not fit its schema (or, from the poll activity, did not fit a poll
 * result), and what was done with it: handed on as {@link UNREADABLE_TYPE} (`unknown`), handed on
 * without the members that did not fit (`trimmed`: receipts and contacts), or left out (`skipped`:
 * no usable id, sender, time or status, so nobody could route it or mark it read).
 */
export const MisfitSchema = z.object({
  kind: z.enum(['message', 'status', 'contact']),
  action: z.enum(['unknown', 'trimmed', 'skipped']),
  /** Its id (a receipt's, a message's; a contact's `wa_id`), when a string of at most 256 characters. */
  id: z.string().optional(),
  problems: z.array(z.string()),
  /** Its JSON size as received, bytes. */
  bytes: z.number().int().nonnegative(),
});
export type Misfit = z.infer<typeof MisfitSchema>;

/** Delivery receipt (2.5). Unknown status values pass through. */
export const StatusSchema = z
  .object({
    id: z.string().min(1),
    status: z.string(),
    timestamp: z.string().optional(),
    recipient_id: z.string().optional(),
    errors: z.array(z.unknown()).optional(),
  })
  .passthrough();
export type Status = z.infer<typeof StatusSchema>;

/** The schemas of an update page (2.4) whose members are read with these. */
function pageSchemas<M extends z.ZodTypeAny, S extends z.ZodTypeAny, C extends z.ZodTypeAny>(member: {
  message: M;
  status: S;
  contact: C;
}) {
  /** `value` of a change. The arrays may be absent when empty. */
  const value = z
    .object({
      messaging_product: z.string().optional(),
      contacts: z.array(member.contact).optional(),
      messages: z.array(member.message).optional(),
      statuses: z.array(member.status).optional(),
    })
    .passthrough();
  const change = z.object({ field: z.string(), value }).passthrough();
  const entry = z.object({ id: z.string(), changes: z.array(change) }).passthrough();
  const page = z
    .object({
      object: z.string().optional(),
      entry: z.array(entry),
      // Safe: the next poll sends it back, and an offset beyond 2^53 cannot be sent exactly.
      next_offset: z.number().int().nonnegative().safe(),
    })
    .passthrough();
  return { value, change, entry, page };
}

/**
 * The body of a 200 answer to GET /updates as it is parsed: its envelope checked, its members
 * (messages, receipts, contacts) left to be read one by one (page-members.ts), so that one that
 * does not fit does not fail its page (and stop its agent at that offset).
 */
export const UpdatePageWireSchema = pageSchemas({
  message: z.unknown(),
  status: z.unknown(),
  contact: z.unknown(),
}).page;
export type UpdatePageWire = z.infer<typeof UpdatePageWireSchema>;

const typedPage = pageSchemas({
  message: InboundMessageSchema,
  status: StatusSchema,
  contact: ContactSchema,
});
export const ChangeValueSchema = typedPage.value;
export type ChangeValue = z.infer<typeof ChangeValueSchema>;
export const ChangeSchema = typedPage.change;
export const EntrySchema = typedPage.entry;

/**
 * Update page (2.4) as the client hands it on: every member fits its schema (a message that did
 * not is handed on as {@link UNREADABLE_TYPE}), and `misfits` (the client's, never the wire's)
 * lists the members that did not fit and what became of them.
 */
export const UpdatePageSchema = typedPage.page.extend({ misfits: z.array(MisfitSchema).optional() });
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
