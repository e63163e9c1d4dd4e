/**
 * The agent workflow: its type and task timeout, what it is started with and how it is tuned, what
 * its state query answers operators, the workflow ids amsflow derives (and the agent-key rule they
 * are built from), the task queues it schedules on, and the poll lease it shares with the poll
 * activity.
 */
import type { Limits } from './conversations';

/**
 * The agent workflow's contract with the outside: its type, what it is started with, and what
 * its state query answers operators (`amsflow state`). What it carries across continue-as-new is
 * the engine's own (`workflows/engine/runtime.ts`).
 */

/** The workflow type of the agent workflow (`agentWorkflow`, in every bot's bundle). */
export const AGENT_WORKFLOW_TYPE = 'agentWorkflow';

/**
 * The agent workflow's workflow task timeout (Temporal's default is 10 s): a task started on a
 * worker that then died holds the agent, its replies and its read ticks this long. Its tasks take
 * milliseconds (p99 0.2-0.4 s in the chaos runs), and a replay of a whole run (continue-as-new at
 * 1,000 events) under a second on a quiet machine; the slowest seen, on a machine running two test
 * suites beside the chaos run, was 4.7 s, so 7 s keeps a margin while the stall stays under the
 * 10 s a message may go unread.
 */
export const AGENT_WORKFLOW_TASK_TIMEOUT = '7 seconds';

/** What the agent workflow (`agent:<agentKey>`) is started with (`ensureAgent`, a starting worker). */
export interface AgentStartInput {
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

/** A send request the outbox gave up, kept for operators (the last few). */
export interface FailedSend {
  requestId: string;
  /** The workflow that asked for it, if a workflow did. */
  requester?: string;
  /** Its failure type (`AmbiguousSend`, `SendRejected`, ...). */
  type: string;
  at: string;
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
  /**
   * Mark-reads given up, receipts nobody waited for, and new messages past the inbound budget
   * (marked read, not handled; the human was told), since the agent started.
   */
  dropped: { markRead: number; receipts: number; flood: number };
  historyLength: number;
  draining: boolean;
  lastError?: AgentError;
  /** The last send requests given up (newest last): whoever asked was told only if it asked to be. */
  failedSends: FailedSend[];
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

/**
 * Tuning of the agent workflow: part of its start input (`AgentStartInput.tuning`), set by the
 * worker's configuration and by tests. Every field has a default (`workflows/engine/tuning.ts`).
 */

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
  /**
   * Continue-as-new after this many history events (or when the server suggests it). Default 1000
   * (runs begun before patch `amsflow-shorter-runs`, 2026-11-28: 4000).
   */
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
  /**
   * A message's read tick rides with the next send (read, then answer); one that no send took
   * within this long after its hand-off (a message with no reply yet) goes by a request of its
   * own. Default 3000 ms.
   */
  markReadGraceMs?: number;
  /** Typing indicators queued at most (newest kept). Default 5. */
  maxQueuedTyping?: number;
  /**
   * A human's new messages (those starting a conversation) taken in per `inboundBudgetWindowMs`;
   * past it, a message is marked read and not handled, and the human is told once per window
   * (a flood would otherwise queue many minutes of replies ahead of approvals and reminders).
   * Answers to a question still reach it. Default 0: every message is taken (dropping what a
   * human wrote is opt-in; 60 suits a chat bot that would rather say so than answer late).
   */
  inboundBudget?: number;
  /** The window of `inboundBudget`. Default 60000 ms. */
  inboundBudgetWindowMs?: number;
}

/**
 * Workflow ids amsflow derives, and the rule for agent keys they are built from. Participant
 * identifiers are opaque (spec 2.1) and never part of an id.
 */

/**
 * An agent key: the operator's name for an agent. It becomes part of workflow ids
 * (`agent:<key>`, `agent:<key>:msg:<id>`), so it is kept to characters that are legal and
 * unambiguous there: no `:` (the separator), no spaces, at most 100 characters.
 */
export const AGENT_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Why `agentKey` is not a legal agent key, or undefined when it is. */
export function agentKeyProblem(agentKey: unknown): string | undefined {
  if (typeof agentKey !== 'string' || agentKey.length === 0) return 'an agent key must be a non-empty string';
  if (!AGENT_KEY_PATTERN.test(agentKey)) {
    return `agent key ${JSON.stringify(agentKey.slice(0, 120))} is not allowed: use 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit`;
  }
  return undefined;
}

/** The agent workflow's id for an agent key. */
export function agentWorkflowId(agentKey: string): string {
  return `agent:${agentKey}`;
}

/** The handler workflow's id for an inbound message: a replayed page can never start a second one. */
export function handlerWorkflowId(agentKey: string, messageId: string): string {
  return `agent:${agentKey}:msg:${messageId}`;
}

/** The workflow of an approval request: one per agent and request id (requests are idempotent by id). */
export function approvalWorkflowId(agentKey: string, requestId: string): string {
  return `approval:${agentKey}:${requestId}`;
}

/** The workflow type of approvals (`approvalWorkflow`, in every bot's bundle). */
export const APPROVAL_WORKFLOW_TYPE = 'approvalWorkflow';

/**
 * Task queues. Each service endpoint has its own activity task queue (`<prefix>-<suffix>`), so
 * that its server-side rate limit is a fleet-wide ceiling for that endpoint alone. The worker
 * listens on these names and the agent workflow schedules on them: both read them from here.
 */

/** Default workflow task queue (`AMSFLOW_TASK_QUEUE`). */
export const DEFAULT_TASK_QUEUE = 'amsflow';

/** Suffix of each endpoint's activity task queue. */
export const QUEUE_SUFFIX = {
  updates: 'updates',
  messages: 'messages',
  statuses: 'statuses',
  media: 'media',
} as const;

export type Endpoint = keyof typeof QUEUE_SUFFIX;

/** The activity task queue of `endpoint` under `prefix` (the workflow task queue by default). */
export function activityQueue(prefix: string, endpoint: Endpoint): string {
  return `${prefix}-${QUEUE_SUFFIX[endpoint]}`;
}

/**
 * The poll lease: what keeps two polls of one agent from being open at the service at once when
 * a worker is cut off rather than dead. Temporal gives a poll activity up when its heartbeats stop
 * arriving (the heartbeat timeout) and the agent workflow polls again elsewhere, but a worker cut
 * off from Temporal only still reaches the service, and its SDK tells the activity nothing (a
 * heartbeat that fails is only logged): it would go on polling, and the service answers the older
 * of two polls 409. So the activity starts a poll only right after Temporal acknowledged one of its
 * heartbeats, within {@link POLL_LEASE.ackMaxMs} (activities/poll-lease.ts), and the workflow,
 * after a poll activity timed out, waits until a poll that activity may have started has ended at
 * the service ({@link lostPollWaitMs}): a worker cut off from the service as well leaves its last
 * request open there until the poll's own timeout. The next poll activity cuts that wait short
 * when the lost attempt's process has certainly ended (activities/poll-tickets.ts). Shared by the
 * activity and the workflow.
 */

export const POLL_LEASE = {
  /** An acknowledgement that took longer than this does not let a poll start (it is asked again). */
  ackMaxMs: 1000,
  /** Added for the way to the service and clocks that differ a little. */
  marginMs: 1000,
  /** How long the activity waits between acknowledgements asked in vain. */
  askAgainMs: 500,
} as const;

/**
 * How long, from when the workflow saw a poll activity time out, a poll it may have started can
 * still be open at the service. Its last poll started within `ackMaxMs` of a heartbeat Temporal
 * recorded, and Temporal timed it out `heartbeatTimeoutMs` after the last one it recorded: that
 * poll ends at the service `timeoutSeconds` after it arrived. Zero when the polls are shorter than
 * the heartbeat timeout (the chaos runs' scaled windows).
 */
export function lostPollWaitMs(timeoutSeconds: number, heartbeatTimeoutMs: number): number {
  return Math.max(0, timeoutSeconds * 1000 + POLL_LEASE.ackMaxMs + POLL_LEASE.marginMs - heartbeatTimeoutMs);
}
