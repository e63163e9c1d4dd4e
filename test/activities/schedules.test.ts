/**
 * The schedule activities against the shared dev server: the human's zone is the one set in the
 * chat (kept by the agent's reminders workflow), else the agent's own from the agents file, else
 * the worker's; an unknown zone of an agent is refused at creation, naming the agent.
 */
import { Worker } from '@temporalio/worker';
import { createScheduleActivities } from '../../activities/schedules';
import { remindersWorkflowId } from '../../protocol/reminders';
import { bundle, connectDevServer, uniqueTaskQueue, waitFor } from '../support/temporal';

jest.setTimeout(120_000);

describe('schedule activities: the human time zone', () => {
  it("reads the chat's zone, else the agent's, else the worker's", async () => {
    const dev = await connectDevServer();
    const taskQueue = uniqueTaskQueue('zones');
    const suffix = taskQueue.slice(-8);
    const [berlin, plain] = [`berlin-${suffix}`, `plain-${suffix}`];
    const acts = createScheduleActivities(dev.client, {
      taskQueue,
      timeZone: 'America/New_York',
      timeZones: { [berlin]: 'europe/berlin' },
    });
    const worker = await Worker.create({
      connection: dev.nativeConnection,
      taskQueue,
      workflowBundle: await bundle(require.resolve('../../workflows/reminders/reminders-workflow')),
    });
    const running = worker.run();
    try {
      expect((await acts.amsflowRemindersRead(berlin)).defaultTimeZone).toBe('Europe/Berlin');
      expect((await acts.amsflowRemindersRead(plain)).defaultTimeZone).toBe('America/New_York');
      await acts.amsflowRemindersWrite(berlin, { op: 'zone', timeZone: 'asia/tokyo' });
      const read = await waitFor('the zone set in the chat', async () => {
        const view = await acts.amsflowRemindersRead(berlin);
        return view.timeZone ? view : undefined;
      });
      expect(read).toMatchObject({ timeZone: 'Asia/Tokyo', defaultTimeZone: 'Asia/Tokyo' });
      expect((await acts.amsflowRemindersRead(plain)).defaultTimeZone).toBe('America/New_York');
    } finally {
      await dev.client.workflow
        .getHandle(remindersWorkflowId(berlin))
        .terminate()
        .catch(() => undefined);
      worker.shutdown();
      await running;
      await dev.close();
    }
  });

  it('refuses an unknown zone of an agent, naming the agent', () => {
    expect(() =>
      createScheduleActivities({} as never, { taskQueue: 'q', timeZones: { sales: 'Europe/Berln' } }),
    ).toThrow('agent "sales": "Europe/Berln" is not an IANA time zone (like Europe/Berlin)');
  });
});
