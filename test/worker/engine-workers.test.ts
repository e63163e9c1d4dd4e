/**
 * The one engine-worker factory (worker/engine-workers.ts): the endpoint queues' plan (every
 * engine activity on exactly one queue, the fleet-wide ceilings), and the bot test harness built
 * on it, whose queues the server sees with the production worker's ceilings. Before the factory,
 * the harness put every activity on every queue and set no ceiling (the server's default,
 * 100000 per second).
 */
import { resolve } from 'node:path';
import { temporal } from '@temporalio/proto';
import { createActivities } from '../../activities';
import { resolveLimits } from '../../messaging/limits';
import { activityQueue } from '../../protocol/agent';
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import { ENDPOINT_QUEUES, endpointQueuePlan, queueCeiling } from '../../worker/engine-queues';
import { waitFor } from '../support/temporal';

jest.setTimeout(120_000);

describe('endpointQueuePlan', () => {
  const limits = resolveLimits({ messages: 30, statuses: 5, typing: 7 });
  const plan = endpointQueuePlan({ taskQueue: 'tq', limits, fleetAgents: 4, agents: 2 });

  it('puts every engine activity on exactly one endpoint queue', () => {
    const engineActivities = Object.keys(createActivities(new Map())).sort();
    expect(plan.flatMap((q) => q.activities).sort()).toEqual(engineActivities);
  });

  it("names each queue after the workflow task queue and sizes its ceiling for the fleet's agents", () => {
    const byEndpoint = Object.fromEntries(plan.map((q) => [q.endpoint, q]));
    expect(byEndpoint.messages).toMatchObject({
      taskQueue: activityQueue('tq', 'messages'),
      maxTaskQueueActivitiesPerSecond: 4 * 30,
      maxConcurrentActivityTaskExecutions: 100,
      shutdownGraceTime: '40s',
    });
    expect(byEndpoint.statuses.maxTaskQueueActivitiesPerSecond).toBe(4 * (5 + 7));
    expect(byEndpoint.updates.shutdownGraceTime).toBe('200ms');
  });

  it('serves many agents with more concurrency, and cuts work at once when asked not to drain', () => {
    const many = endpointQueuePlan({ taskQueue: 'tq', limits, fleetAgents: 400, agents: 400, drain: false });
    expect(many.every((q) => q.maxConcurrentActivityTaskExecutions === 800)).toBe(true);
    expect(many.every((q) => q.shutdownGraceTime === undefined)).toBe(true);
  });
});

describe('the bot test harness runs the factory', () => {
  let bot: BotTestEnv | undefined;
  afterEach(async () => {
    await bot?.teardown();
    bot = undefined;
  });

  it("its endpoint queues are polled with the production worker's ceilings", async () => {
    const limits = { messages: 20, updates: 9 };
    bot = await createBotTestEnv({
      workflows: resolve(__dirname, '..', 'testing', 'bots', 'conversation-bot.ts'),
      timeSkipping: false,
      limits,
    });
    const { workflowService } = bot.client;
    const resolved = resolveLimits(limits);
    for (const queue of ENDPOINT_QUEUES) {
      const rates = await waitFor(`pollers on the ${queue.endpoint} queue`, async () => {
        const { pollers } = await workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: activityQueue(bot!.taskQueue, queue.endpoint) },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        });
        return pollers && pollers.length > 0 && pollers.map((p) => p.ratePerSecond);
      });
      expect(rates).toEqual(rates.map(() => queueCeiling(resolved, queue.budget, 1)));
    }
  });
});
