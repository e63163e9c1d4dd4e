/**
 * The Agent Messaging Service client, grouped by audience.
 */

// Using the client
export {
  MessagingClient,
  DEFAULT_BASE_URL,
  type MessagingClientOptions,
  type CallOptions,
  type SendOptions,
  type SendTextOptions,
  type SendCaptionedOptions,
  type SendDocumentOptions,
  type SendResult,
  type GetUpdatesParams,
  type UploadMediaOptions,
  type DownloadMediaOptions,
  type DownloadedMedia,
} from './client';

// Polling
export {
  InMemoryOffsetStore,
  DEFAULT_POLL_TIMEOUT_S,
  type OffsetStore,
  type PollEvent,
  type PollOptions,
} from './poll';
export { flattenPage, recipientFromPage, type FlatPage } from './page';
export { DEFAULT_UNREADABLE_RAW_BYTES, readUpdatePage, type MemberReading } from './page-members';
export { cutItem, cutItemsToFit, DEFAULT_CUT_STRING_BYTES, jsonBytes } from './size-bounds';

// Handling errors
export {
  MessagingError,
  ValidationError,
  ApiError,
  AuthError,
  RateLimitError,
  NotAcceptedError,
  PollReplacedError,
  AmbiguousSendError,
  UnexpectedResponseError,
  TransportError,
  RequestAbortedError,
  ClientClosedError,
  ErrorCodes,
  isMessagingError,
  type MessagingErrorCode,
  type AmbiguousSendReason,
  type TransportFailure,
} from './errors';

// Limits, validation rules and pacing
export { DEFAULT_LIMITS, type Limits, type PacedEndpoint } from './limits';
export {
  DEFAULT_MEDIA_RULES,
  MAX_TEXT_CHARS,
  MAX_CAPTION_CHARS,
  MAX_POLL_TIMEOUT_S,
  type MediaRule,
  type MediaRules,
} from './validation';
export { RollingWindowLimiter, type RateLimiterOptions } from './rate-limiter';
export { type Clock, systemClock } from './clock';

// Wire shapes (zod schemas and their types)
export {
  SendRequestSchema,
  SendResponseSchema,
  UpdatePageSchema,
  InboundMessageSchema,
  UnreadableMessageSchema,
  NotUnderstoodSchema,
  TruncationSchema,
  MisfitSchema,
  ContactSchema,
  StatusSchema,
  ErrorBodySchema,
  ErrorObjectSchema,
  MediaUploadResponseSchema,
  MediaMetadataSchema,
  AckSchema,
  StatusRequestSchema,
  MESSAGING_PRODUCT,
  UNREADABLE_TYPE,
  MEDIA_KINDS,
  KNOWN_STATUS_VALUES,
  type OutgoingMessage,
  type SendRequest,
  type SendResponse,
  type UpdatePage,
  type InboundMessage,
  type UnreadableMessage,
  type NotUnderstood,
  type Truncation,
  type TruncatedMessage,
  type Misfit,
  type InboundMedia,
  type InboundReaction,
  type Contact,
  type Status,
  type KnownStatusValue,
  type ErrorBody,
  type ErrorObject,
  type MediaUploadResponse,
  type MediaMetadata,
  type MediaKind,
  type Ack,
} from './schemas';
