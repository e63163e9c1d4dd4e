import { ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { createSmokeActivities } from './activities';

const { greet } = proxyActivities<ReturnType<typeof createSmokeActivities>>({
  startToCloseTimeout: '10 seconds',
});

/** Calls one activity and returns its answer. */
export async function smokeGreeting(name: string): Promise<string> {
  return greet(name);
}

/** Sleeps for 30 days, then reports how long the workflow clock moved. */
export async function smokeLongSleep(): Promise<number> {
  const start = Date.now();
  await sleep('30 days');
  return Date.now() - start;
}

/** Fails with a typed, non-retryable failure (its history replays as a failure). */
export async function smokeFailure(): Promise<void> {
  throw ApplicationFailure.create({ type: 'SmokeFailure', message: 'on purpose', nonRetryable: true });
}
