/**
 * A reminder is never accepted when it cannot be delivered: the write activity confirms that the
 * agent's reminders workflow runs (it answers its query) and otherwise fails, non-retryable,
 * with `RemindersUnavailable` once its workflow task has failed. Before, a worker whose bundle
 * lacked `remindersWorkflow` took the start, `remindIn` resolved, and the reminder could never
 * fire. A workflow that only answers late is retried, not refused. Against the dev server.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { createScheduleActivities } from '../../activities/schedules';
import type { Reminder } from '../../protocol/reminders';
import { bundle, connectDevServer, uniqueTaskQueue } from '../support/temporal';

jest.setTimeout(180_000);

const reminder = (): Reminder => ({
  id: `r-${Date.now()}`,
  text: 'call mom',
  timeZone: 'UTC',
  dueAt: Date.now() + 86_400_000,
  createdAt: Date.now(),
  maxLatenessMs: 86_400_000,
  lateAfterMs: 60_000,
});

describe('the reminders write activity', () => {
  let server: Awaited<ReturnType<typeof connectDevServer>>;
  beforeAll(async () => {
    server = await connectDevServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function withWorker<T>(workflowsPath: string, run: (taskQueue: string) => Promise<T>): Promise<T> {
    const taskQueue = uniqueTaskQueue('reminders-write');
    const worker = await Worker.create({
      connection: server.nativeConnection,
      taskQueue,
      workflowBundle: await bundle(workflowsPath),
    });
    return worker.runUntil(run(taskQueue));
  }

  it('fails with RemindersUnavailable when the worker has no reminders workflow', async () => {
    const failure = await withWorker(require.resolve('./fixtures/no-reminders'), async (taskQueue) => {
      const activities = createScheduleActivities(server.client, { taskQueue });
      const agentKey = `nowf${Date.now()}`;
      try {
        await activities.amsflowRemindersWrite(agentKey, { op: 'add', reminder: reminder() });
        return undefined;
      } catch (err) {
        await server.client.workflow.getHandle(`reminders:${agentKey}`).terminate('test');
        return err;
      }
    });
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'RemindersUnavailable', nonRetryable: true });
    expect((failure as Error).message).toMatch(
      /^The reminders workflow reminders:nowf\d+ does not run on task queue reminders-write-/,
    );
  });

  it('resolves once the reminders workflow has taken the reminder', async () => {
    await withWorker(require.resolve('../../workflows/reminders/reminders-workflow'), async (taskQueue) => {
      const activities = createScheduleActivities(server.client, { taskQueue });
      const agentKey = `wf${Date.now()}`;
      const added = reminder();
      await activities.amsflowRemindersWrite(agentKey, { op: 'add', reminder: added });
      const read = await activities.amsflowRemindersRead(agentKey);
      expect(read.reminders.map((r) => r.id)).toEqual([added.id]);
      await server.client.workflow.getHandle(`reminders:${agentKey}`).terminate('test');
    });
  });

  it('is retried (RemindersNotAnswering) when the workflow only did not answer in time, no task failed', async () => {
    // Nobody polls this task queue: the start is taken and no workflow task runs, let alone fails
    // (a killed worker or a restarting server looks the same for as long as the write waits: 20 s
    // by default, 2 s here).
    const taskQueue = uniqueTaskQueue('reminders-nobody');
    const activities = createScheduleActivities(server.client, { taskQueue, confirmMs: 2_000 });
    const agentKey = `slow${Date.now()}`;
    const failure = await activities
      .amsflowRemindersWrite(agentKey, { op: 'add', reminder: reminder() })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    await server.client.workflow.getHandle(`reminders:${agentKey}`).terminate('test');
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'RemindersNotAnswering', nonRetryable: false });
    expect((failure as Error).message).toMatch(/did not answer within 2000 ms/);
  });
});
