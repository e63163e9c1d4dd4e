import { Worker } from '@temporalio/worker';
import { createSmokeActivities } from './activities';
import { smokeGreeting } from './workflows';
import { bundle, connectDevServer, uniqueTaskQueue } from '../support/temporal';
import { recordHistory } from '../support/histories';

describe('dev server smoke', () => {
  let env: Awaited<ReturnType<typeof connectDevServer>>;
  beforeAll(async () => {
    env = await connectDevServer();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('round-trips a workflow that calls an activity', async () => {
    const taskQueue = uniqueTaskQueue('smoke');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await bundle(require.resolve('./workflows')),
      activities: createSmokeActivities('Hello'),
    });
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(smokeGreeting, {
        taskQueue,
        workflowId: `smoke-greeting-${taskQueue}`,
        args: ['amsflow'],
      });
      const value = await handle.result();
      await recordHistory(handle, 'smoke-greeting');
      return value;
    });
    expect(result).toBe(`Hello, amsflow! (pid ${process.pid})`);
  });
});
