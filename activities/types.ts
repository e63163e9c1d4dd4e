/**
 * Inputs, outputs and failure types of amsflow's activities. Workflows import this file by type
 * only; failure types are the strings a workflow matches on (`ApplicationFailure.type`).
 */
import type { MarkReadReport } from './mark-reads';
import type { QuietPollingInput } from './quiet-polling';
import type { Contact, InboundMessage, Misfit, OutgoingMessage, Status } from '../messaging/schemas';

export interface PollInput {
  agentKey: string;
  offset: number;
  limit: number;
  /** Long-poll wait in seconds; 0 answers at once. */
  timeoutSeconds: number;
  /** Poll again, paced, while polls bring nothing needed now (see quiet-polling.ts); absent: one poll. */
  quiet?: QuietPollingInput;
  /** Wait this long before the first poll (the updates window's pacing, the even cadence). */
  startAfterMs?: number;
  /** The agent's last poll activity timed out: its poll may still be open at the service. */
  lostPoll?: LostPollInput;
}

/**
 * A poll activity attempt that timed out (the poll lease: protocol/agent.ts), handed to the
 * next: no poll before `waitMs` from now (the lease's wait), unless the ticket file says the
 * lost attempt's process has ended or is this one (poll-tickets.ts).
 */
export interface LostPollInput {
  /** The lost attempt's ticket: `<workflow id>/<run id>/<activity id>`. */
  ticket: string;
  waitMs: number;
}

/** What every poll result carries besides its page. */
interface PollExtras {
  /**
   * Ends (worker clock) of the polls the activity made before the one it returns: a quiet poll's
   * (they brought nothing needed now), and those whose page was too large for a result and was
   * read again with a smaller limit (`reread`).
   */
  quietPolls?: number[];
  /** Receipts a quiet poll read past (no conversation watched them), oldest first. */
  readPast?: Status[];
  /**
   * When each receipt a quiet poll read past was read (worker clock), in order: the first ones of a
   * page's `statuses`, or of `readPast`. What an ambiguous send is reconciled with is dated by it.
   */
  readPastAt?: number[];
  /** With `readPast` and no page: the offset after them. */
  offsetAfter?: number;
}

/**
 * What a failed or cancelled poll did before it ended, carried as its failure's second detail
 * or its cancellation's first (failure-mapping.ts `withPollReport`), for the workflow's window,
 * its receipts and its offset.
 */
export interface PollFailureReport {
  /** When each quiet poll it made before the failed one was answered, and the failed one's end. */
  quietPolls?: number[];
  /** Receipts its quiet polls read past before it failed or was cancelled, oldest first. */
  readPast?: Status[];
  /** When each of `readPast` was read (worker clock). */
  readPastAt?: number[];
  /** With `readPast`: the offset after them (the next poll's, not the input's). */
  offsetAfter?: number;
}

export type PollOutput =
  | ({
      status: 'page';
      nextOffset: number;
      messages: InboundMessage[];
      statuses: Status[];
      contacts: Contact[];
      /** Worker clock when the request left (the poll's fence for a reconciliation). */
      startedAt: number;
      /**
       * Members of the page that did not fit their schema (or, left out, a poll result), and what
       * became of each: a message handed on as type `unknown` is among `messages`; a `skipped` one
       * (no usable id, sender or time; or too large even cut) is in no list, though it took its
       * place in the page (a page of `limit` items with one skipped is still a full page).
       */
      misfits?: Misfit[];
      /**
       * The page as returned was read again with a smaller `limit` (the first answer was too large
       * for a result): that limit (a page of that many items may not be the end), and how many
       * polls were read again (their ends are among `quietPolls`).
       */
      reread?: { limit: number; polls: number };
    } & PollExtras)
  | ({ status: 'empty'; startedAt: number } & PollExtras)
  | ({ status: 'replaced'; startedAt: number } & PollExtras);

export interface SendInput {
  agentKey: string;
  /** Recipient, passed through unchanged. */
  to: string;
  message: Omit<OutgoingMessage, 'to'>;
  /** The outbox request and attempt this is, for logs. */
  attemptId: string;
  /**
   * Messages to mark read before the send (read, then answer), their slots taken in the agent's
   * statuses window; the send goes whatever becomes of them (see mark-reads.ts).
   */
  markRead?: string[];
}

export interface SendOutput {
  messageId: string;
  /** `wa_id` the service answered with, if any: the recipient to use from now on. */
  recipient?: string;
  startedAt: number;
  /** With `markRead`: what became of them. */
  markRead?: MarkReadReport;
}

/** Details of a failed send attempt (first element of `ApplicationFailure.details`). */
export interface SendFailureDetails {
  startedAt?: number;
  status?: number;
  /** From Retry-After, when the service sent one. */
  retryAfterMs?: number;
  /** Why the outcome is unknown: 'server_error' | 'connection' | 'timeout' | 'malformed_response'. */
  reason?: string;
  /** The agent's token was refused (401, code 190): no send of this agent can succeed. */
  tokenRefused?: boolean;
  /** With the input's `markRead`: what became of them (they went before the send). */
  markRead?: MarkReadReport;
}

export interface StatusInput {
  agentKey: string;
  messageId: string;
}

/** Messages to mark read by a request each, their slots taken in the agent's statuses window. */
export interface MarkReadInput {
  agentKey: string;
  messageIds: string[];
}

export interface StatusOutput {
  startedAt: number;
}

export { ActivityFailureTypes } from '../protocol/failures';
