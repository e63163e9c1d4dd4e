/**
 * Types shared by the agent workflow, the conversation helpers, the activities and the client.
 * Wire types come from the zod schemas of `messaging/` (type-only: workflow code must not load
 * undici or zod).
 */
import type { Contact, InboundMessage, OutgoingMessage, Status } from '../messaging/schemas';
import type { Limits } from '../messaging/limits';

export type { Contact, InboundMessage, Limits, Status };

/** A message to send: the wire body without `to` (the agent fills in its recipient). */
export type OutboundMessage = Omit<OutgoingMessage, 'to'>;

/** A request to the agent's outbox. `requestId` makes it idempotent: the outbox takes an id once. */
export interface SendRequest {
  /** Deterministic id, e.g. `<requester workflow id>/send/<n>`. */
  requestId: string;
  message: OutboundMessage;
  /** Workflow that gets the outcome (signal path) and the message's receipts. */
  requester?: string;
  /** Arrival number of the inbound message whose handler sends this; orders first replies. */
  handlerSeq?: number;
  /** Re-send after an ambiguous outcome (500, dropped connection, timeout). Duplicates possible. */
  retryAmbiguous?: boolean;
  /**
   * After an ambiguous outcome, decide from the service's receipts: accepted (the outcome is the
   * message id) or, after `reconcileSettleMs` with no receipt, not accepted (sent again).
   */
  reconcileAmbiguous?: boolean;
  /** After it is sent, route the human's next message and quoting replies to the requester. */
  expectReply?: boolean;
}

/** Stable failure types of a send, as seen by the workflow that asked for it. */
export const SEND_FAILURE_TYPES = [
  /** The outcome is unknown (500, dropped connection, read timeout, worker died mid-send): not re-sent. */
  'AmbiguousSend',
  /** The service or the local checks refused the message (4xx): fix the message. */
  'SendInvalid',
  /** The token was refused (401/403): fix the configuration. */
  'SendUnauthorized',
  /** Still rate-limited or not accepted (429/503) after every attempt: nothing was sent. */
  'SendRejected',
  /** No recipient is known yet: the human has not written and discovery found none. */
  'NoRecipient',
] as const;
export type SendFailureType = (typeof SEND_FAILURE_TYPES)[number];

export type SendOutcome =
  | { ok: true; messageId: string; attempts: number }
  | { ok: false; type: SendFailureType; message: string; attempts: number };

/** A delivery receipt as forwarded to the workflow that sent the message. */
export interface Receipt {
  messageId: string;
  status: string;
  timestamp?: string;
}

/** What a message handler workflow receives. */
export interface HandlerInput {
  agentKey: string;
  agentWorkflowId: string;
  message: InboundMessage;
  /** Arrival number of the message in this agent (1, 2, ...). */
  seq: number;
}

/** An inbound message routed to a workflow that was waiting for it. */
export interface RoutedMessage {
  message: InboundMessage;
  seq: number;
}

/** Tuning of the agent workflow. Every field has a default; tests shorten the windows. */
export interface AgentTuning {
  /** Long-poll wait in seconds (spec maximum 25: about 2.4 polls a minute when idle). Default 25. */
  pollTimeoutSeconds?: number;
  /** Page size of a poll. Default 50 (the spec's default). */
  pollLimit?: number;
  /** Added to each pacing wait, covering the delay between scheduling and the request. Default 100 ms. */
  pacingMarginMs?: number;
  /** First wait after a 429 without Retry-After; then doubled (5, 10, 20 s). Default 5000 ms. */
  rateLimitBackoffMs?: number;
  /** Backoff bounds after a 503 or an opted-in ambiguous retry. Defaults 500 ms and 30000 ms. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Attempts per send, the first included. Default 6. */
  maxSendAttempts?: number;
  /** How long a later message's reply waits for an earlier message's handler to send first. Default 30000 ms. */
  orderingGraceMs?: number;
  /** Continue-as-new after this many history events (or when the server suggests it). Default 4000. */
  continueAsNewAfterEvents?: number;
  /**
   * Heartbeat timeout of the poll and send activities: how soon a worker lost mid-request is
   * noticed (the send then counts as ambiguous). Default 10000 ms.
   */
  activityHeartbeatTimeoutMs?: number;
  /**
   * How long reconciliation of an ambiguous send waits for the service's 'sent' receipt before it
   * concludes the message was not accepted: a bound on how long the service may take to accept a
   * request it received. Default 60000 ms.
   */
  reconcileSettleMs?: number;
  /** Bound of the remembered message ids, request ids and receipt routes. Default 1000. */
  recentIdsKept?: number;
}

/** Input of the agent workflow (`agent:<agentKey>`). */
export interface AgentWorkflowInput {
  agentKey: string;
  /** Per-endpoint limits and window, from `messaging/limits` (resolved by the client side). */
  limits: Limits;
  /** Workflow type started for each unrouted inbound message. Default `onMessage`. */
  handlerWorkflowType?: string;
  /** Task queue of handler workflows. Default: the agent workflow's own. */
  handlerTaskQueue?: string;
  /** Prefix of the per-endpoint activity task queues (`<prefix>-messages` ...). Default: the agent's task queue. */
  activityQueuePrefix?: string;
  tuning?: AgentTuning;
  /** A recipient to start from (else: discovered by the first poll). */
  recipient?: string;
  /** State carried over by continue-as-new. */
  carried?: CarriedState;
}

/** Everything the agent workflow carries across continue-as-new. */
export interface CarriedState {
  offset: number;
  firstPollDone: boolean;
  recipient?: string;
  inboundSeq: number;
  recentInbound: string[];
  outcomes: [string, SendOutcome][];
  queue: SendRequest[];
  replyWaiters: [string, string][];
  nextWaiters: string[];
  receiptRoutes: [string, string][];
  slots: [number, number][];
  windows: Record<'messages' | 'updates' | 'statuses' | 'typing', number[]>;
  markRead: string[];
  sentIds: string[];
  unclaimedSent: { id: string; seenAt: number }[];
  lastPollStartedAt: number;
  lastError?: AgentError;
  counters: AgentCounters;
  generation: number;
}

export interface AgentError {
  at: string;
  where: 'poll' | 'send' | 'status' | 'route';
  type: string;
  message: string;
}

export interface AgentCounters {
  received: number;
  sent: number;
  failedSends: number;
  polls: number;
  receipts: number;
}

/** The agent's state as JSON, for operators (`amsflow state`). */
export interface AgentStateView {
  agentKey: string;
  generation: number;
  offset: number;
  recipientKnown: boolean;
  queueLength: number;
  sending?: string;
  waiters: { reply: number; next: number };
  pendingMarkRead: number;
  historyLength: number;
  draining: boolean;
  lastError?: AgentError;
  counters: AgentCounters;
}
