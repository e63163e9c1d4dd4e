/**
 * The scripted human's side of the harness: a simulator with the bot's one agent, on the test
 * server's clock when time is skipped (server-clock.ts), so that the service's timestamps and
 * windows move with the skipped time.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startSimulator } from '../simulator';
import type { SimulatorOptions } from '../simulator';
import { ServerClock } from './server-clock';

/** The scripted human's side: a simulator on the test server's clock when time is skipped. */
export async function startHarnessSimulator(
  env: TestWorkflowEnvironment,
  agentKey: string,
  token: string,
  limits: SimulatorOptions['limits'],
  timeSkipping: boolean,
) {
  const clock = timeSkipping ? await ServerClock.from(() => env.currentTimeMs()) : undefined;
  return startSimulator({
    port: 0,
    agents: [{ id: agentKey, token, creator: 'user:1001', creatorName: 'Tester' }],
    limits,
    ...(clock ? { clock: { now: clock.now, sync: clock.sync } } : {}),
  });
}
