import { z } from 'zod';

/**
 * Every wire choice the spec leaves "not shown" lives here (WIRE-CONVENTIONS), so that a
 * correction is a one-line change.
 */

/** Value of `object` in an update page. Clients echo it, never rely on it. */
export const OBJECT = 'agent_messaging_service';
/** Value of `messaging_product` in pages, send results and media metadata. */
export const MESSAGING_PRODUCT = 'agent_messaging';

export const TEXT_MAX_CHARS = 4096;
export const CAPTION_MAX_CHARS = 1024;
/** How long a typing indicator shows (simulated ms) unless the agent sends first. */
export const TYPING_SHOWN_MS = 25_000;
/** Largest `limit` served by GET /updates; larger values are clamped to it. */
export const UPDATES_LIMIT_MAX = 100;
export const UPDATES_LIMIT_DEFAULT = 50;

export const OUTBOUND_TYPES = ['text', 'image', 'video', 'audio', 'document', 'sticker'] as const;
export type OutboundType = (typeof OUTBOUND_TYPES)[number];
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const CAPTION_TYPES: readonly string[] = ['image', 'video', 'document'];
export const FILENAME_TYPES: readonly string[] = ['document'];

/** Wire names of members the spec leaves unshown. */
export const WIRE = {
  /** Media id member of a media object in a send: `{ image: { id } }`. */
  mediaId: 'id',
  /** Top-level quote member of a send: `{ context: { message_id } }`. */
  quote: 'context',
  quoteId: 'message_id',
} as const;

export const ENDPOINTS = [
  'messages',
  'updates',
  'statuses',
  'typing',
  'media.upload',
  'media.get',
  'media.delete',
  'media.download',
] as const;
export const EndpointSchema = z.enum(ENDPOINTS);
export type Endpoint = z.infer<typeof EndpointSchema>;

export type ReceiptStatus = 'sent' | 'delivered' | 'read';

/** Inbound message (spec 2.2) as it appears in `value.messages`. */
export interface InboundMessage {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  context?: { from?: string; id: string; [member: string]: unknown };
  [member: string]: unknown;
}

/** Receipt (spec 2.5, WIRE-CONVENTIONS) as it appears in `value.statuses`. */
export interface StatusItem {
  id: string;
  status: ReceiptStatus;
  timestamp: string;
  recipient_id: string;
}

/** POST /statuses: mark read, optionally with a typing indicator. */
export const StatusesBodySchema = z
  .object({
    messaging_product: z.string().optional(),
    status: z.literal('read'),
    message_id: z.string().min(1),
    typing_indicator: z
      .object({ type: z.literal('text') })
      .passthrough()
      .optional(),
  })
  .passthrough();

// ---- control API bodies ----

const AgentSelector = { agent: z.string().min(1).optional() };

export const HumanMessageSchema = z
  .object({
    ...AgentSelector,
    type: z.string().min(1),
    context: z
      .object({ id: z.string().min(1) })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type HumanMessageInput = z.infer<typeof HumanMessageSchema>;

export const FaultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('rate_limit'), retryAfter: z.number().int().min(0).nullable().optional() }),
  z.object({ kind: z.literal('not_accepted') }),
  z.object({ kind: z.literal('server_error_after_accept') }),
  z.object({ kind: z.literal('drop_before') }),
  z.object({ kind: z.literal('drop_after') }),
  z.object({ kind: z.literal('slow'), delayMs: z.number().min(0) }),
  z.object({ kind: z.literal('malformed_json') }),
  z.object({ kind: z.literal('poll_replaced') }),
  z.object({ kind: z.literal('bad_token') }),
]);
export type Fault = z.infer<typeof FaultSchema>;
export type FaultKind = Fault['kind'];

export const FaultRequestSchema = z.object({
  ...AgentSelector,
  endpoint: EndpointSchema,
  count: z.number().int().min(1).optional(),
  fault: FaultSchema,
});
export type FaultRequest = z.infer<typeof FaultRequestSchema>;

export const ReadRequestSchema = z.object({ ...AgentSelector, id: z.string().min(1) });
export const ClockRequestSchema = z.object({ advanceMs: z.number().min(0) });
export const ResetRequestSchema = z.object({ ...AgentSelector }).passthrough();
