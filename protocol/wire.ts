/**
 * The service's wire types that cross amsflow's boundaries (handler inputs, routed messages,
 * send requests), by type only from the zod schemas of `messaging/`: workflow code must not
 * load undici or zod, and protocol/ may import messaging/ by type only.
 */
import type { OutgoingMessage } from '../messaging/schemas';

export type {
  Contact,
  InboundMessage,
  Misfit,
  NotUnderstood,
  Status,
  TruncatedMessage,
  Truncation,
  UnreadableMessage,
} from '../messaging/schemas';
export type { Limits } from '../messaging/limits';

/** A message to send: the wire body without `to` (the agent fills in its recipient). */
export type OutboundMessage = Omit<OutgoingMessage, 'to'>;
