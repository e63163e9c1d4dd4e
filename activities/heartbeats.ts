/**
 * Heartbeats while an activity waits: Temporal learns of a worker lost mid-attempt within the
 * activity's heartbeat timeout instead of its start-to-close timeout.
 */
import { Context } from '@temporalio/activity';

/** How often a waiting activity tells Temporal it is alive (the SDK throttles to 80% of the heartbeat timeout). */
const HEARTBEAT_EVERY_MS = 1000;

/**
 * Awaits `work`, heartbeating now and every second until it settles; outside an activity (a
 * schedule activity called directly, as the model activities' zone lookup does) it only awaits.
 */
export async function withHeartbeats<T>(work: Promise<T>): Promise<T> {
  const ctx = activityContext();
  if (!ctx) return work;
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
