/**
 * The engine's activities over real HTTP against a simulator of their own, for one `describe`:
 * started before its tests, reset before each, closed after. The activities' client is the
 * engine's kind (test/support/engine-client.ts): it neither paces nor retries.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { MessagingClient } from '../../messaging';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator';
import { engineClient } from './engine-client';

/** The agent key the activities know their client by. */
export const AGENT = 'demo';

export interface ActivitiesOnSimulator {
  sim: RunningSimulator;
  client: MessagingClient;
  acts: ReturnType<typeof createActivities>;
  /** A fresh activity environment, logging errors only. */
  env(): MockActivityEnvironment;
}

/** Registers the hooks; the fields are set once `beforeAll` has run. */
export function activitiesOnSimulator(options: SimulatorOptions = {}): ActivitiesOnSimulator {
  const on = {
    env: () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }),
  } as ActivitiesOnSimulator;
  beforeAll(async () => {
    on.sim = await startSimulator({ port: 0, ...options });
    on.client = engineClient(on.sim);
    on.acts = createActivities(new Map([[AGENT, on.client]]), { pollTicketsDir: false });
  });
  afterAll(async () => {
    await on.client?.close();
    await on.sim?.close();
  });
  beforeEach(() => on.sim.control.reset());
  return on;
}
