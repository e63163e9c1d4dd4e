/**
 * The engine's activity task queues, as a pure plan: which activities each endpoint queue
 * carries, its fleet-wide ceiling, its concurrency and how long its work may finish on shutdown.
 * `createEngineWorkers` (engine-workers.ts) turns the plan into workers, for `runAmsflow` and for
 * the bot test harness alike, so that the two cannot drift apart.
 */
import type { Duration } from '@temporalio/common';
import type { Activities } from '../activities';
import type { Limits } from '../messaging/limits';
import { activityQueue, type Endpoint } from '../protocol/agent';

/** Activities per endpoint queue, the limits whose budgets size its ceiling, and its drain time. */
export const ENDPOINT_QUEUES: readonly {
  endpoint: Endpoint;
  activities: readonly (keyof Activities)[];
  budget: readonly (keyof Limits)[];
  shutdownGraceTime: Duration;
}[] = [
  // A long poll is abandoned at once on shutdown: its page is read again by the next poll.
  { endpoint: 'updates', activities: ['pollUpdates'], budget: ['updates'], shutdownGraceTime: '200ms' },
  // A send in flight is finished, never cut: a cut send is an ambiguous send.
  { endpoint: 'messages', activities: ['sendMessage'], budget: ['messages'], shutdownGraceTime: '40s' },
  {
    endpoint: 'statuses',
    activities: ['markRead', 'sendTyping'],
    budget: ['statuses', 'typing'],
    shutdownGraceTime: '10s',
  },
  {
    endpoint: 'media',
    activities: ['uploadMedia', 'getMedia', 'deleteMedia', 'downloadMedia'],
    budget: ['mediaUpload', 'mediaGet', 'mediaDelete'],
    shutdownGraceTime: '30s',
  },
];

/**
 * Fleet-wide ceiling of an endpoint queue, in activities per second: a whole window's budget of
 * every agent of the fleet per second. The agent workflow's sliding window is the exact pacer;
 * this ceiling only caps a runaway fleet. It is deliberately not the average rate (budget / 60 s):
 * the server enforces it as a token bucket with a burst of about one second's worth, so the
 * average rate would turn the optimal burst (12 sends at once) into one send every 5 s.
 */
export function queueCeiling(limits: Limits, budget: readonly (keyof Limits)[], fleetAgents: number): number {
  return fleetAgents * budget.reduce((sum, key) => sum + limits[key], 0);
}

/** One endpoint queue's worker settings. */
export interface EndpointQueuePlan {
  endpoint: Endpoint;
  taskQueue: string;
  activities: readonly (keyof Activities)[];
  maxTaskQueueActivitiesPerSecond: number;
  maxConcurrentActivityTaskExecutions: number;
  /** Undefined: activities in flight are cancelled at once on shutdown (the SDK's default). */
  shutdownGraceTime?: Duration;
}

/** What the plan depends on. */
export interface EndpointQueuesInput {
  /** The workflow task queue: the endpoint queues are named after it. */
  taskQueue: string;
  limits: Limits;
  /** Agents of the whole fleet (the ceilings). */
  fleetAgents: number;
  /** Agents this process serves (its concurrency). */
  agents: number;
  /** False: work in flight is cut at once on shutdown (a test's teardown). Default true. */
  drain?: boolean;
}

/** The endpoint queues' worker settings; every engine activity is on exactly one of them. */
export function endpointQueuePlan(input: EndpointQueuesInput): EndpointQueuePlan[] {
  return ENDPOINT_QUEUES.map((queue) => ({
    endpoint: queue.endpoint,
    taskQueue: activityQueue(input.taskQueue, queue.endpoint),
    activities: queue.activities,
    maxTaskQueueActivitiesPerSecond: queueCeiling(input.limits, queue.budget, input.fleetAgents),
    // Room for every agent's long poll, and for agents a fleet reload adds.
    maxConcurrentActivityTaskExecutions: Math.max(100, input.agents * 2),
    ...(input.drain === false ? {} : { shutdownGraceTime: queue.shutdownGraceTime }),
  }));
}
