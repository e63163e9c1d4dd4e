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
