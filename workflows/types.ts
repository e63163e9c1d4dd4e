/**
 * Types shared by the agent workflow, the conversation helpers, the activities and the client.
 * Wire types come from the zod schemas of `messaging/` (type-only: workflow code must not load
 * undici or zod).
 */
import type { Contact, InboundMessage, OutgoingMessage, Status } from '../messaging/schemas';
import type { Limits } from '../messaging/limits';
import type { SendFailureType } from '../protocol/failures';
import type { CursorState } from './agent/poll-cursor';
import type { LedgerState } from './agent/receipt-ledger';
import type { RouterState } from './agent/router';
import type { StatusQueueState } from './agent/status-queue';

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
  /** With `expectReply`: which wait of the requester the answer is for (see {@link WaitRequest}). */
  waitId?: number;
  /** With `expectReply`: the human's next message goes to the requester too. Default true. */
  waitNextToo?: boolean;
  /** With `expectReply`: bare messages that are one of these words go to the requester too (yes/no). */
  answerWords?: string[];
  /** With `answerWords`: how "which one?" lists the question. */
  answerLabel?: string;
  /**
   * Send only while the requester's wait `onlyWhileWaiting` is open (a nudge): once the human's
   * answer was routed to it, or the wait ended, the request is dropped with `NotWaiting` and
   * nothing is sent. Checked before every attempt, so a nudge never follows a received answer.
   */
  onlyWhileWaiting?: number;
}

/**
 * Registers (`wait: true`) or ends (`wait: false`) a workflow's wait for the human's next
 * message. `waitId` numbers the workflow's waits (1, 2, ...): a message routed to a wait that
 * has ended is handed back by the agent and ignored by the workflow.
 */
export interface WaitRequest {
  workflowId: string;
  wait: boolean;
  waitId?: number;
  /** With `wait: true`: also take a message quoting (or reacting to) this message id. */
  questionId?: string;
  /** With `wait: true`: take the human's next message too. Default true. */
  nextToo?: boolean;
  /** With `wait: true`: also take a bare message that is one of these words (an approval's yes/no). */
  answerWords?: string[];
  /** With `answerWords`: how "which one?" lists this wait when a bare answer fits several. */
  label?: string;
  /** With `wait: false`: what the agent answers a late answer once this workflow has ended. */
  lateText?: string;
}

export { SEND_FAILURE_TYPES } from '../protocol/failures';
export type { SendFailureType } from '../protocol/failures';

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
  /** The bot's configuration (`AMSFLOW_BOT_CONFIG`), as the agent workflow was started with it. */
  config?: unknown;
  /** Prefix of the agent's activity task queues (`<prefix>-media`, ...). */
  activityQueuePrefix: string;
}

/** What `amsflow conversations show` prints: one conversation (handler workflow) as it stands. */
export interface ConversationView {
  workflowId: string;
  agentKey: string;
  /** The author's name for it (`nameConversation('signup')`), if any. */
  name?: string;
  /** The current step: the pending question's `step` option, or its text. */
  step?: string;
  /** True while it waits for the human. */
  waiting: boolean;
  /** Workflow time (ISO 8601) when the current wait began. */
  waitingSince?: string;
  /** Workflow time (ISO 8601) when the conversation began. */
  startedAt: string;
  /** Set once it was cancelled (by a cancel word or from outside). */
  cancelled?: 'human' | 'operator';
}

/** A human's answer to a question whose wait had timed out, sent to the conversation that asked. */
export interface LateMessage {
  message: InboundMessage;
  seq: number;
  /** The question it quotes or reacts to. */
  questionId: string;
}

/** An inbound message routed to a workflow that was waiting for it. */
export interface RoutedMessage {
  message: InboundMessage;
  seq: number;
  /** The wait it was routed to (absent for waits registered without an id). */
  waitId?: number;
}

/** Tuning of the agent workflow. Every field has a default; tests shorten the windows. */
export interface AgentTuning {
  /** Long-poll wait in seconds (spec maximum 25: about 2.4 polls a minute when idle). Default 25. */
  pollTimeoutSeconds?: number;
  /**
   * 0 (default): poll again as soon as a poll ends (long polls). Above 0: after a poll that found
   * nothing, wait for the `wake` signal or this many ms before polling again. The bot test harness
   * uses it with `pollTimeoutSeconds: 0`, so that an idle agent runs no activity and the test
   * server can skip time; it wakes the agent whenever the scripted human acts.
   */
  idlePollMs?: number;
  /**
   * How long one poll activity may go on long-polling while pages come back empty, pacing itself
   * by the updates window, before it returns to the workflow: an idle agent then costs one
   * workflow task per this period instead of one per long poll. 0 returns every empty page.
   * Default 300000 ms (5 minutes). Not used with `idlePollMs`.
   */
  quietPollMs?: number;
  /**
   * After a page of receipts only, the next poll waits up to this long, in proportion to the share
   * of the updates budget already spent, so that the receipts that follow come in one page.
   * Default 4000 ms (60 s / 15: one poll's share of the budget). 0 turns receipt settling off.
   */
  receiptSettleMs?: number;
  /** Polls of the updates window a quiet poll (idle agent) never spends: kept for the workflow's own. Default 2. */
  pollReserve?: number;
  /** A receipt settle shorter than this is skipped (below the server's timer resolution). Default 1000 ms. */
  minSettleMs?: number;
  /** Page size of a poll. Default 50 (the spec's default). */
  pollLimit?: number;
  /** Added to each pacing wait, covering the delay between scheduling and the request. Default 100 ms. */
  pacingMarginMs?: number;
  /** First wait after a 429 without Retry-After; then doubled (5, 10, 20 s). Default 5000 ms. */
  rateLimitBackoffMs?: number;
  /** Backoff bounds after a 503 or an opted-in ambiguous retry. Defaults 500 ms and 30000 ms. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /**
   * A send's retry budget, as attempts with the first included: default 4, the spec's three
   * retries after rejections (429/503). Resends after an ambiguous outcome have a budget of the
   * same size of their own.
   */
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
  /** Requests the outbox holds at most; past it a request fails at once with `OutboxFull`. Default 500. */
  maxQueuedSends?: number;
  /** Bytes of queued message bodies the outbox holds at most; past it `OutboxFull`. Default 524288. */
  maxQueuedSendBytes?: number;
  /** Registered waits kept at most; past it the oldest is dropped. Default 200. */
  maxWaiters?: number;
  /** Mark-reads pending at most; past it the oldest is dropped (and counted). Default 500. */
  maxPendingMarkRead?: number;
  /** A mark-read failing for this long is given up. Default 3600000 ms (1 hour). */
  markReadGiveUpMs?: number;
  /** Typing indicators queued at most (newest kept). Default 5. */
  maxQueuedTyping?: number;
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
  /** The bot's configuration, handed to every handler (`ctx.config`). */
  botConfig?: unknown;
  /** A recipient to start from (else: discovered by the first poll). */
  recipient?: string;
  /** State carried over by continue-as-new. */
  carried?: CarriedState;
}

/**
 * Everything the agent workflow carries across continue-as-new: the sum of its parts' slices,
 * each bounded (see `workflows/agent/carried-state.ts`). Older runs carried waiters as plain
 * workflow ids and mark-reads as plain message ids; both forms are still read.
 */
export interface CarriedState extends CursorState, RouterState, LedgerState, StatusQueueState {
  inboundSeq: number;
  outcomes: [string, SendOutcome][];
  queue: SendRequest[];
  slots: [number, number][];
  windows: Record<'messages' | 'updates' | 'statuses' | 'typing', number[]>;
  lastError?: AgentError;
  /** Set while a final refusal has stopped the agent (see `workflows/agent/refusal.ts`). */
  refusal?: AgentRefusal;
  counters: AgentCounters;
  generation: number;
}

/**
 * Why an agent stopped polling: its token was refused (`unauthorized`: 401, or 403 on a poll), or
 * a poll was refused with another 4xx that no retry can cure (`refused`). It stays stopped until
 * resumed (`amsflow agent resume <key>`, or a worker starting with the agent).
 */
export interface AgentRefusal {
  status: 'unauthorized' | 'refused';
  where: 'poll' | 'send';
  /** The HTTP status, when the service answered one. */
  httpStatus?: number;
  at: string;
  /** What the service said (the token never appears in it). */
  message: string;
  /** What the operator does about it. */
  fix: string;
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
  /** Mark-reads given up and receipts nobody waited for, since the agent started. */
  dropped: { markRead: number; receipts: number };
  historyLength: number;
  draining: boolean;
  lastError?: AgentError;
  counters: AgentCounters;
  /** `running`, or why the agent stopped polling (with `refusal` saying what to do). */
  status: 'running' | AgentRefusal['status'];
  refusal?: AgentRefusal;
  /**
   * Polling's heartbeat, for health checks: when the last poll ended, and the time by which the
   * next one should have ended (absent while stopped or draining). Workflow time, ISO strings.
   */
  poll: { lastEndedAt?: string; dueBy?: string };
}
