/**
 * Where a turn's activities run and how they are retried. A model call is retried by Temporal
 * (the attempts and their backoff are workflow options, so they survive a worker's death): 429,
 * 5xx and timeouts as `ModelUnavailable`, with a provider's Retry-After taking the place of the
 * backoff; a refusal (`ModelRefused`: a wrong key, model or request) is not. The call heartbeats,
 * so a worker killed mid-call is noticed within {@link HEARTBEAT_TIMEOUT_MS}, and an interrupted
 * call is cancelled at its next heartbeat.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { MODEL_FAILURE_TYPES, type ModelActivities } from '../../protocol/models';
import type { TurnSettings } from './model-options';
import type { ToolDefinition } from './tool';

/** The longest silence of a model call's worker before the attempt is given up (and retried). */
export const HEARTBEAT_TIMEOUT_MS = 10_000;
/** The longest wait between two attempts of a model call (a Retry-After may ask up to 60 s). */
export const MAX_BACKOFF_MS = 30_000;

/** The model call, with the turn's timeout, attempts and backoff. */
export function modelCalls(settings: TurnSettings): Pick<ModelActivities, 'amsflowModelCall'> {
  return proxyActivities<ModelActivities>({
    startToCloseTimeout: settings.timeoutMs,
    heartbeatTimeout: Math.min(settings.timeoutMs, HEARTBEAT_TIMEOUT_MS),
    retry: {
      initialInterval: settings.backoffMs,
      backoffCoefficient: 2,
      maximumInterval: Math.max(settings.backoffMs, MAX_BACKOFF_MS),
      maximumAttempts: settings.attempts,
      nonRetryableErrorTypes: [MODEL_FAILURE_TYPES.refused],
    },
  });
}

/**
 * Whether the worker has a model, asked once a turn before anything shows: a local activity (a
 * marker in history, no task of its own), so that a bot without a model answers as it would
 * without model turns, with no typing indicator and no model call.
 */
export const modelName = proxyLocalActivities<ModelActivities>({ startToCloseTimeout: '10 seconds' });

/** The memory write: rides out worker kills and server restarts, as the reminders' writes do. */
export const memoryWrites = proxyActivities<ModelActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** The bot's activity behind a tool (`execute` names it), with the tool's timeout and attempts. */
export function toolActivity(
  definition: ToolDefinition,
): (input: unknown, call: { callId: string; agentKey: string }) => Promise<unknown> {
  const attempts = definition.attempts ?? (definition.needsApproval ? 1 : 3);
  const activities = proxyActivities<Record<string, (input: unknown, call: unknown) => Promise<unknown>>>({
    startToCloseTimeout: definition.timeout ?? '1 minute',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: attempts,
    },
  });
  return activities[definition.execute as string];
}
