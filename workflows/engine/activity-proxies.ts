/**
 * The agent workflow's handles on its activities, one per endpoint queue. Every activity is
 * one attempt (`maximumAttempts: 1`): a retry is the workflow's decision, made through the send
 * policy, so every request that reaches the service is counted by the window that paces it,
 * and the retry count and backoff live in workflow state (they survive a worker kill). A send
 * retried by Temporal after a worker crash would also re-send a message that may have gone.
 */
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { activityQueue } from '../../protocol/queues';
import type { Tuning } from './tuning';

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
