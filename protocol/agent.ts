/**
 * The agent workflow's contract with the outside: its type, what it is started with, and what
 * its state query answers operators (`amsflow state`). What it carries across continue-as-new is
 * the engine's own (`workflows/engine/runtime.ts`).
 */
import type { AgentTuning } from './agent-tuning';
import type { Limits } from './wire';

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
