/**
 * The stale-clock guard (workflows/engine/activation-clock.ts) against the SDK core defect it
 * stops, on the dev server: a worker that holds a run is SIGKILLed with a timer pending, the
 * timer fires while no worker is up, queries keep coming, and a new worker (without the run in
 * its cache) is handed those queries before the timer's workflow task. Unguarded, the core runs
 * the fired timer live on the clock of the task before, the run starts a second timer, and a
 * replay of its history fails for nondeterminism. Guarded, that activation fails, the run is
 * rebuilt from history, and it ends with one timer and a history that replays.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { bundleBot } from '../../worker/bot-bundle';
import { connectDevServer, devServerAddress, waitFor } from '../support/temporal';

/** A bare worker process for one task queue and bundle: prints `ready`, runs until killed. */
const WORKER_SOURCE = `
const { Worker, NativeConnection, Runtime, DefaultLogger } = require(process.env.WORKER_MODULE);
Runtime.install({ logger: new DefaultLogger('ERROR') });
(async () => {
  const connection = await NativeConnection.connect({ address: process.env.ADDRESS });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.TASK_QUEUE,
    workflowBundle: { codePath: process.env.BUNDLE },
    // The fired timer's task waits on the killed worker's queue while the queries go elsewhere.
    stickyQueueScheduleToStartTimeout: '10s',
  });
  console.log('ready');
  await worker.run();
})().catch((err) => { console.error(err); process.exit(1); });
`;

const TIMER_MS = 3000;

describe('the stale-clock guard', () => {
  let dir: string;
  let bundlePath: string;
  let code: string;
  let temporal: Awaited<ReturnType<typeof connectDevServer>>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'amsflow-stale-clock-'));
    ({ code } = await bundleBot({ workflowsPath: require.resolve('./clock-workflows'), handlers: [] }));
    bundlePath = join(dir, 'bundle.js');
    writeFileSync(bundlePath, code);
    writeFileSync(join(dir, 'worker.js'), WORKER_SOURCE);
    temporal = await connectDevServer();
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await temporal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startWorker(taskQueue: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, [join(dir, 'worker.js')], {
      env: {
        ...process.env,
        WORKER_MODULE: require.resolve('@temporalio/worker'),
        ADDRESS: devServerAddress(),
        TASK_QUEUE: taskQueue,
        BUNDLE: bundlePath,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (data: Buffer) => data.toString().includes('ready') && resolve());
      child.once('exit', (status) => reject(new Error(`worker exited (${status})`)));
    });
    return child;
  }

  it('fails the activation a query ran on a stale clock: the run ends with one timer and replays', async () => {
    const { client } = temporal;
    const taskQueue = `stale-clock-${Date.now()}`;
    const first = await startWorker(taskQueue);
    const handle = await client.workflow.start('sleepUntilDue', {
      taskQueue,
      workflowId: `${taskQueue}-wf`,
      args: [TIMER_MS],
    });
    const events = async () => (await handle.fetchHistory()).events ?? [];
    await waitFor('the timer to start', async () =>
      (await events()).some((e) => e.timerStartedEventAttributes),
    );
    first.kill('SIGKILL');

    // Queries while no worker holds the run; answered by the next worker, from history.
    let querying = true;
    const queried = (async () => {
      const errors: string[] = [];
      const asked: Promise<unknown>[] = [];
      while (querying) {
        asked.push(handle.query<number>('clock').catch((err: Error) => errors.push(err.message)));
        await new Promise((r) => setTimeout(r, 200));
      }
      await Promise.all(asked);
      return errors;
    })();
    await waitFor(
      'the timer to fire',
      async () => (await events()).some((e) => e.timerFiredEventAttributes),
      {
        timeoutMs: TIMER_MS + 10_000,
      },
    );
    await startWorker(taskQueue);
    const timers = await handle.result();
    querying = false;
    const errors = await queried;

    expect(timers).toBe(1);
    const history = await handle.fetchHistory();
    expect(history.events!.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    await Worker.runReplayHistory({ workflowBundle: { code }, replayName: 'stale-clock' }, history);
    // The guard met the stale activation: the queries it ran for failed with its reason.
    expect(errors.some((message) => /stale workflow clock/.test(message))).toBe(true);
  }, 90_000);
});
