/**
 * The agent's tuning: the defaults of `AgentTuning`, and the activities on their endpoint queues
 * with the timeouts the tuning sets.
 */
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { activityQueue, type AgentTuning } from '../../protocol/agent';

/**
 * Defaults of the agent workflow's tuning (`AgentTuning`). The spec's limits stay the defaults;
 * tests shorten windows and timeouts through the same fields.
 */

export type Tuning = Required<AgentTuning>;

export const DEFAULT_TUNING: Tuning = {
  pollTimeoutSeconds: 25,
  idlePollMs: 0,
  quietPollMs: 300_000,
  // About one poll's share of the updates budget (60 s / 15): spent evenly under pressure.
  receiptSettleMs: 4000,
  pollReserve: 2,
  // Temporal fires timers about a second late at best: a shorter settle would cost that second.
  minSettleMs: 1000,
  pollLimit: 50,
  pacingMarginMs: 100,
  rateLimitBackoffMs: 5000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  // The spec allows three retries after a retryable failure: four attempts in all.
  maxSendAttempts: 4,
  orderingGraceMs: 30_000,
  // A worker taking a run over replays its whole history within the 10-s workflow task timeout,
  // also on a loaded machine (at 4,000 the cluster chaos run's replays took over 10 s).
  continueAsNewAfterEvents: 1000,
  recentIdsKept: 1000,
  activityHeartbeatTimeoutMs: 10_000,
  reconcileSettleMs: 60_000,
  maxQueuedSends: 500,
  maxQueuedSendBytes: 512 * 1024,
  maxWaiters: 200,
  maxPendingMarkRead: 500,
  markReadGiveUpMs: 3_600_000,
  // Most replies leave well within it (an echo in tens of ms), taking their read tick along; a
  // slower handler (a model turn) shows the message read after this long, well before the reply.
  markReadGraceMs: 3000,
  maxQueuedTyping: 5,
  inboundBudget: 0,
  inboundBudgetWindowMs: 60_000,
};

export function resolveTuning(tuning: AgentTuning | undefined): Tuning {
  const resolved = { ...DEFAULT_TUNING };
  for (const [key, value] of Object.entries(tuning ?? {})) {
    if (value !== undefined) (resolved as Record<string, number>)[key] = value as number;
  }
  return resolved;
}

/** The history length at which a run continues as new: its tuning's, else the default. */
export function continueAsNewAfterEvents(tuning: AgentTuning | undefined): number {
  return tuning?.continueAsNewAfterEvents ?? DEFAULT_TUNING.continueAsNewAfterEvents;
}

/**
 * The agent workflow's handles on its activities, one per endpoint queue. Every activity is
 * one attempt (`maximumAttempts: 1`): a retry is the workflow's decision, made through the send
 * policy, so every request that reaches the service is counted by the window that paces it,
 * and the retry count and backoff live in workflow state (they survive a worker kill). A send
 * retried by Temporal after a worker crash would also re-send a message that may have gone.
 */

export interface AgentActivities {
  /**
   * A long poll, its cancellation awaited: continue-as-new waits until the open poll has ended,
   * so that the next run's first poll never overlaps it.
   */
  poll: Pick<Activities, 'pollUpdates'>;
  /** The same activity for a quiet poll: a cancelled one is awaited, so that two polls never overlap. */
  quietPoll: Pick<Activities, 'pollUpdates'>;
  send: Pick<Activities, 'sendMessage'>;
  status: Pick<Activities, 'markRead' | 'sendTyping'>;
}

/**
 * A poll whose worker died is noticed when its heartbeat times out, and only then does the agent
 * poll again: at most 5 s for polls (a poll timed out is harmless: it is made again), while a
 * send keeps the full `activityHeartbeatTimeoutMs` (a send timed out is an ambiguous send).
 */
export function pollHeartbeatTimeoutMs(tuning: Tuning): number {
  return Math.min(tuning.activityHeartbeatTimeoutMs, 5000);
}

export function agentActivities(queuePrefix: string, tuning: Tuning): AgentActivities {
  return {
    poll: proxyActivities<Activities>({
      taskQueue: activityQueue(queuePrefix, 'updates'),
      startToCloseTimeout: `${tuning.pollTimeoutSeconds + 40}s`,
      heartbeatTimeout: pollHeartbeatTimeoutMs(tuning),
      retry: { maximumAttempts: 1 },
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    }),
    quietPoll: proxyActivities<Activities>({
      taskQueue: activityQueue(queuePrefix, 'updates'),
      // It returns before `quietPollMs` is over (see activities/quiet-polling.ts).
      startToCloseTimeout: `${Math.ceil(tuning.quietPollMs / 1000) + tuning.pollTimeoutSeconds + 40}s`,
      heartbeatTimeout: pollHeartbeatTimeoutMs(tuning),
      retry: { maximumAttempts: 1 },
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    }),
    send: proxyActivities<Activities>({
      taskQueue: activityQueue(queuePrefix, 'messages'),
      startToCloseTimeout: '90s',
      heartbeatTimeout: tuning.activityHeartbeatTimeoutMs,
      retry: { maximumAttempts: 1 },
    }),
    status: proxyActivities<Activities>({
      taskQueue: activityQueue(queuePrefix, 'statuses'),
      startToCloseTimeout: '45s',
      // A mark-read or typing request lost with its worker is noticed within seconds: the mark-reads
      // go again at once, and neither loop (nor continue-as-new, which waits for them) stalls.
      heartbeatTimeout: pollHeartbeatTimeoutMs(tuning),
      retry: { maximumAttempts: 1 },
    }),
  };
}
