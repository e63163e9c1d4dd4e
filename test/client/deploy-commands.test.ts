/**
 * `amsflow deploy` against the dev server, with two versioned workers (plain SDK workers of two
 * builds on a task queue of their own): status before and after a promotion, a ramp, refusals of
 * builds the deployment does not have, and the emergency move of a pinned workflow. (The whole
 * rollout, drain included, runs on the native cluster: test/cluster/deploys.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { deploymentStatus } from '../../client/deployments';
import { pinnedOn } from '../../protocol/deployments';
import { deploymentOptions } from '../../worker/versioning';
import { bundle, connectDevServer, devServerAddress, waitFor } from '../support/temporal';
import { run } from './cli-runner';

jest.setTimeout(60_000);

const taskQueue = `deploy-cli-${randomUUID().slice(0, 8)}`;
const env = () => ({ TEMPORAL_ADDRESS: devServerAddress(), AMSFLOW_TASK_QUEUE: taskQueue });
let dev: Awaited<ReturnType<typeof connectDevServer>>;
const workers: { worker: Worker; running: Promise<void> }[] = [];

async function startBuild(buildId: string): Promise<void> {
  const worker = await Worker.create({
    connection: dev.nativeConnection,
    taskQueue,
    workflowBundle: await bundle(require.resolve('../smoke/workflows')),
    workerDeploymentOptions: deploymentOptions({ deploymentName: taskQueue, buildId }),
  });
  workers.push({ worker, running: worker.run() });
}

beforeAll(async () => {
  dev = await connectDevServer();
});
afterAll(async () => {
  for (const { worker } of workers) worker.shutdown();
  await Promise.all(workers.map((w) => w.running));
  await dev.close();
});

it('shows, promotes, ramps and moves builds; refuses what the deployment does not have', async () => {
  const none = await run(['deploy', 'status'], env());
  expect(none).toMatchObject({ code: 1, err: expect.stringContaining(`no deployment "${taskQueue}"`) });

  await startBuild('b1');
  await startBuild('b2');
  await waitFor('both builds known', async () => {
    const status = await deploymentStatus(dev.client, taskQueue).catch(() => undefined);
    return status?.builds.length === 2;
  });
  const unknown = await run(['deploy', 'promote', 'b9'], env());
  expect(unknown).toMatchObject({
    code: 1,
    err: expect.stringMatching(/has no build "b9" .*its builds: b[12], b[12]$/),
  });
  expect(await run(['deploy', 'promote', 'b1', '--ramp', '120'], env())).toMatchObject({ code: 2 });

  const promoted = await waitFor('b1 promoted', async () => {
    const r = await run(['deploy', 'promote', 'b1'], env());
    return r.code === 0 && r;
  });
  expect(promoted.out).toBe(
    `build b1 is current in deployment ${taskQueue}: new conversations start on it; see amsflow deploy status`,
  );
  // A workflow that waits a month, pinned to b1.
  const sleeper = await dev.client.workflow.start('smokeLongSleep', {
    taskQueue,
    workflowId: `sleep-${taskQueue}`,
  });
  await waitFor(
    'the sleeper pinned to b1',
    async () => (await pinnedOn(dev.client, { deploymentName: taskQueue, buildId: 'b1' })).length === 1,
  );

  expect(await run(['deploy', 'promote', 'b2', '--ramp', '30'], env())).toMatchObject({ code: 0 });
  const shown = await run(['deploy', 'status'], env());
  expect(shown.out.split('\n')).toEqual([
    `deployment ${taskQueue}: current build b1`,
    '  b2  ramping 30%  conversations 0, approvals 0, reminders 0, agents 0',
    '  b1  current  conversations 1, approvals 0, reminders 0, agents 0',
  ]);

  // Emergency: a workflow that is no conversation is not cancelled (and says why); what is
  // pinned to b1 moves to b2.
  const cancelled = await run(['deploy', 'cancel', 'b1', '--reason', 'withdrawn'], env());
  expect(cancelled.code).toBe(1);
  expect(cancelled.out.split('\n')).toEqual([
    expect.stringMatching(new RegExp(`^${sleeper.workflowId}  .*not a conversation`)),
    '0 conversation(s) cancelled on build b1',
  ]);
  const moved = await run(['deploy', 'move', 'b1', '--to', 'b2'], env());
  expect(moved.out.split('\n')).toEqual([sleeper.workflowId, '1 workflow(s) moved from build b1 to b2']);
  const { raw } = await sleeper.describe();
  expect(raw.workflowExecutionInfo?.versioningInfo?.versioningOverride?.pinned?.version?.buildId).toBe('b2');
  await sleeper.terminate();
});
