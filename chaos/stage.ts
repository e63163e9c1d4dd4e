/**
 * The chaos run's stage: a Temporal dev server of its own (restartable on the same data and
 * port), a simulator serving the agents, and a supervisor that keeps `workers` worker processes
 * running (`worker/main.ts`), starting a new one whenever one dies or is killed.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startBenchWorker, type BenchWorker } from '../bench/worker-process';
import { resolveTemporalBinaries } from '../tools/temporal-binaries';
import { startSimulator, type RunningSimulator } from '../simulator';
import { freePort, startDevServer, type RunningDevServer } from '../worker/dev-server';
import { scaledTuning } from '../bench/scaled-tuning';

export interface StageOptions {
  agents: number;
  workers: number;
  windowMs: number;
  workflowBundle: string;
  /** Keep the Temporal database, the service's transcripts and the workers' output here. */
  keepDir?: string;
  log(line: string): void;
}

export interface Stage {
  sim: RunningSimulator;
  client: Client;
  agents: string[];
  taskQueue: string;
  /** SIGKILLs one running worker (chosen by `pick`); the supervisor starts another. */
  killWorker(pick: (n: number) => number): Promise<number>;
  /** Stops the Temporal server and starts it again on the same data and port. */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

export async function startStage(options: StageOptions): Promise<Stage> {
  const binaries = await resolveTemporalBinaries();
  if (binaries.cli.kind !== 'path') throw new Error('chaos: the Temporal CLI is needed on disk');
  const cliPath = binaries.cli.path;
  const dir = options.keepDir ?? mkdtempSync(join(tmpdir(), 'amsflow-chaos-'));
  if (options.keepDir) mkdirSync(dir, { recursive: true });
  const workerLines: string[] = [];
  const dbFile = join(dir, 'temporal.db');
  const port = await freePort();
  let server: RunningDevServer = await startDevServer({ cliPath, dbFile, port, uiPort: false });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const tag = randomUUID().slice(0, 6);
  const agents = Array.from({ length: options.agents }, (_, i) => ({
    id: `chaos${tag}-${i}`,
    token: `token-${tag}-${i}-${randomUUID()}`,
    creator: 'user:4242',
  }));
  const sim = await startSimulator({ port: 0, limits: { windowMs: options.windowMs }, agents });
  const taskQueue = `chaos-${tag}`;
  const workerOptions = {
    temporalAddress: server.address,
    simulatorUrl: sim.url,
    agents: agents.map((a) => ({ agentKey: a.id, token: a.token })),
    taskQueue,
    limits: { windowMs: options.windowMs },
    // As the engine suites scale the tuning to a short window.
    tuning: scaledTuning(options.windowMs),
    workflowBundle: options.workflowBundle,
    readyTimeoutMs: 60_000,
  };

  const slots: (BenchWorker | undefined)[] = Array.from({ length: options.workers }, () => undefined);
  let stopping = false;
  const supervise = async () => {
    while (!stopping) {
      for (let i = 0; i < slots.length && !stopping; i++) {
        if (slots[i]) continue;
        try {
          const worker = await startBenchWorker(workerOptions);
          slots[i] = worker;
          void worker.exited.then(() => {
            if (slots[i] === worker) slots[i] = undefined;
            if (options.keepDir) workerLines.push(`--- worker ${i} exited`, ...worker.output);
          });
        } catch (err) {
          options.log(
            `chaos: a worker did not start (${(err as Error).message.split('\n')[0]}); trying again`,
          );
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const supervisor = supervise();
  // The first workers are up before the humans start.
  while (slots.some((s) => !s)) await new Promise((r) => setTimeout(r, 100));

  return {
    sim,
    client,
    agents: agents.map((a) => a.id),
    taskQueue,
    async killWorker(pick) {
      const live = slots.map((w, i) => [w, i] as const).filter(([w]) => w !== undefined);
      const [worker, index] = live[pick(live.length)];
      await worker!.kill();
      if (slots[index] === worker) slots[index] = undefined;
      return index;
    },
    async restartServer() {
      await server.stop();
      server = await startDevServer({ cliPath, dbFile, port, uiPort: false, portWaitMs: 20_000 });
    },
    async close() {
      stopping = true;
      await supervisor;
      await Promise.all(slots.map((w) => (w ? w.stop() : Promise.resolve())));
      await connection.close().catch(() => undefined);
      await server.stop();
      if (options.keepDir) {
        const service = await Promise.all(
          agents.map(async (a) => ({
            agent: a.id,
            transcript: await sim.control.transcript({ agent: a.id }),
            log: await sim.control.log(a.id),
          })),
        );
        writeFileSync(join(dir, 'service.json'), JSON.stringify(service, null, 1));
        writeFileSync(join(dir, 'workers.log'), workerLines.join('\n'));
        options.log(`chaos: kept the database, transcripts and worker output in ${dir}`);
      }
      await sim.close();
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
