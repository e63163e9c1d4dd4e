/**
 * Inputs, outputs and failure types of amsflow's activities. Workflows import this file by type
 * only; failure types are the strings a workflow matches on (`ApplicationFailure.type`).
 */
import type { Contact, InboundMessage, OutgoingMessage, Status } from '../messaging/schemas';

export interface PollInput {
  agentKey: string;
  offset: number;
  limit: number;
  /** Long-poll wait in seconds; 0 answers at once. */
  timeoutSeconds: number;
}

export type PollOutput =
  | {
      status: 'page';
      nextOffset: number;
      messages: InboundMessage[];
      statuses: Status[];
      contacts: Contact[];
      /** Worker clock when the request left, for the workflow's pacing window. */
      startedAt: number;
    }
  | { status: 'empty'; startedAt: number }
  | { status: 'replaced'; startedAt: number };

export interface SendInput {
  agentKey: string;
  /** Recipient, passed through unchanged. */
  to: string;
  message: Omit<OutgoingMessage, 'to'>;
  /** The outbox request and attempt this is, for logs. */
  attemptId: string;
}

export interface SendOutput {
  messageId: string;
  /** `wa_id` the service answered with, if any: the recipient to use from now on. */
  recipient?: string;
  startedAt: number;
}

/** Details of a failed send attempt (first element of `ApplicationFailure.details`). */
export interface SendFailureDetails {
  startedAt?: number;
  status?: number;
  /** From Retry-After, when the service sent one. */
  retryAfterMs?: number;
  /** Why the outcome is unknown: 'server_error' | 'connection' | 'timeout' | 'malformed_response'. */
  reason?: string;
}

export interface StatusInput {
  agentKey: string;
  messageId: string;
}

export interface StatusOutput {
  startedAt: number;
}

/** `ApplicationFailure.type` values thrown by the activities. */
export const ActivityFailureTypes = {
  /** 429 or 503: nothing was sent; retry after `retryAfterMs` or a backoff. */
  sendRejected: 'SendRejected',
  /** The outcome of the attempt is unknown; never retried by amsflow unless opted in. */
  sendAmbiguous: 'SendAmbiguous',
  /** 4xx (or a local check): the message is wrong. */
  sendInvalid: 'SendInvalid',
  /** 401/403: the token or the recipient is wrong. */
  sendUnauthorized: 'SendUnauthorized',
  /** A non-send request was rate limited (retryable, with `nextRetryDelay`). */
  rateLimited: 'RateLimited',
  /** The token was refused on a non-send request. */
  unauthorized: 'Unauthorized',
  /** A non-send request was refused as invalid. */
  invalidRequest: 'InvalidRequest',
  /** No client is configured on this worker for the agent key. */
  unknownAgent: 'UnknownAgent',
} as const;
