/**
 * Bare worker processes for the activation guard's suites: one bundle of test workflows (bundled
 * as every amsflow worker bundles, so with the guard), a worker per task queue that prints `ready`
 * and runs until it is killed. The suites kill them with SIGKILL, as a crash would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleBot } from '../../worker/bot-bundle';
import { devServerAddress } from '../support/temporal';

const WORKER_SOURCE = `
const { Worker, NativeConnection, Runtime, DefaultLogger } = require(process.env.WORKER_MODULE);
Runtime.install({ logger: new DefaultLogger('ERROR') });
(async () => {
  const connection = await NativeConnection.connect({ address: process.env.ADDRESS });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.TASK_QUEUE,
    workflowBundle: { codePath: process.env.BUNDLE },
    // A task (or a query) sent to a killed worker's queue waits this long before it goes elsewhere.
    stickyQueueScheduleToStartTimeout: '10s',
  });
  console.log('ready');
  await worker.run();
})().catch((err) => { console.error(err); process.exit(1); });
`;

export class BareWorkers {
  private readonly children: ChildProcess[] = [];

  private constructor(
    private readonly dir: string,
    /** The bundled workflow code (for `Worker.runReplayHistory`). */
    readonly code: string,
  ) {}

  /** Bundles `workflowsPath` as amsflow does and writes the worker's script. */
  static async create(workflowsPath: string): Promise<BareWorkers> {
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-bare-workers-'));
    const { code } = await bundleBot({ workflowsPath, handlers: [] });
    writeFileSync(join(dir, 'bundle.js'), code);
    writeFileSync(join(dir, 'worker.js'), WORKER_SOURCE);
    return new BareWorkers(dir, code);
  }

  /** Starts a worker process on `taskQueue`; resolves once it runs. */
  async start(taskQueue: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, [join(this.dir, 'worker.js')], {
      env: {
        ...process.env,
        WORKER_MODULE: require.resolve('@temporalio/worker'),
        ADDRESS: devServerAddress(),
        TASK_QUEUE: taskQueue,
        BUNDLE: join(this.dir, 'bundle.js'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (data: Buffer) => data.toString().includes('ready') && resolve());
      child.once('exit', (status) => reject(new Error(`worker exited (${status})`)));
    });
    return child;
  }

  /** Kills every worker it started and removes its files. */
  dispose(): void {
    for (const child of this.children) child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Queries `ask` every 200 ms until the returned `stop` is called; `stop` resolves with the
 * messages of the queries that failed.
 */
export function keepQuerying(ask: () => Promise<unknown>): { stop(): Promise<string[]> } {
  let querying = true;
  const errors: string[] = [];
  const done = (async () => {
    const asked: Promise<unknown>[] = [];
    while (querying) {
      asked.push(ask().catch((err: Error) => errors.push(err.message)));
      await new Promise((r) => setTimeout(r, 200));
    }
    await Promise.all(asked);
  })();
  return {
    async stop() {
      querying = false;
      await done;
      return errors;
    },
  };
}
