// The replay bundle's workflows with one incompatible change: smokeGreeting now waits before its
// activity (a timer where its recorded history has the activity), as a careless edit would.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createSmokeActivities } from '../smoke/activities';

export * from './all-workflows';

const { greet } = proxyActivities<ReturnType<typeof createSmokeActivities>>({
  startToCloseTimeout: '10 seconds',
});

export async function smokeGreeting(name: string): Promise<string> {
  await sleep(1);
  return greet(name);
}
