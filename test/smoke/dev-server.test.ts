import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { createSmokeActivities } from './activities';
import { smokeFailure, smokeGreeting } from './workflows';
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

  it('fails a workflow with a typed failure, and its history records it', async () => {
    const taskQueue = uniqueTaskQueue('smoke-fail');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await bundle(require.resolve('./workflows')),
    });
    const failure = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(smokeFailure, {
        taskQueue,
        workflowId: `smoke-fail-${taskQueue}`,
      });
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      await recordHistory(handle, 'smoke-failure');
      return err;
    });
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(((failure as WorkflowFailedError).cause as ApplicationFailure).type).toBe('SmokeFailure');
  });
});
