/**
 * The constants and names of the Agent Messaging Service's wire that the spec does not show:
 * amsflow follows the WhatsApp Cloud API conventions recorded in shared/WIRE-CONVENTIONS.md.
 * Imported through messaging/schemas.ts (the one module of wire shapes).
 */

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
/**
 * The `type` an inbound message is handed on with when it does not fit its schema (spec 9: it is
 * passed on, not refused): WhatsApp's own name for a message it could not read. Its payload
 * object, `unknown`, says what did not fit (response-schemas.ts `NotUnderstoodSchema`).
 */
export const UNREADABLE_TYPE = 'unknown';
/** Media kinds: the outbound types that reference an uploaded media id. */
export const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];
/** Media kinds whose payload object may carry a caption (spec 4.1). */
export const CAPTIONED_KINDS: readonly MediaKind[] = ['image', 'video', 'document'];

/** Receipt status values WIRE-CONVENTIONS names; others pass through. */
export const KNOWN_STATUS_VALUES = ['sent', 'delivered', 'read', 'failed'] as const;
export type KnownStatusValue = (typeof KNOWN_STATUS_VALUES)[number];
