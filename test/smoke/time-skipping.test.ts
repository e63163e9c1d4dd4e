import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { smokeLongSleep } from './workflows';
import { bundle, createTimeSkippingEnv, uniqueTaskQueue } from '../support/temporal';

describe('time-skipping smoke', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('finishes a workflow that sleeps 30 days within seconds', async () => {
    const taskQueue = uniqueTaskQueue('sleep');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await bundle(require.resolve('./workflows')),
    });
    const started = Date.now();
    const slept = await worker.runUntil(
      env.client.workflow.execute(smokeLongSleep, { taskQueue, workflowId: `sleep-${taskQueue}` }),
    );
    expect(slept).toBeGreaterThanOrEqual(30 * 24 * 3600 * 1000);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
