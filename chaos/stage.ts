/**
 * The chaos run's stage: a Temporal dev server of its own (restartable on the same data and
 * port), a simulator serving the agents, and a supervisor that keeps `workers` worker processes
 * running (`worker/main.ts`), starting a new one whenever one dies or is killed.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../tools/temporal-connection';
import { resolveTemporalBinaries } from '../tools/temporal-binaries';
import { startSimulator, type RunningSimulator } from '../simulator';
import { freePort, startDevServer, type RunningDevServer } from '../worker/dev-server';
import { scaledTuning } from '../bench/scaled-tuning';
import { superviseWorkers } from './workers';
import { ASK_AGAIN_INTERCEPTORS } from '../protocol/messages';

export interface StageOptions {
  agents: number;
  workers: number;
  windowMs: number;
  /** The simulator's grace from a message's delivery to its mark-read (simulated ms). */
  unreadGraceMs?: number;
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
  /** Worker processes that exited without being killed (a crash, a failed worker). */
  unexpectedExits(): number;
  /** On the cluster: PostgreSQL and toxiproxy, for the nemesis (chaos/nemesis.ts). */
  cluster?: import('./nemesis').NemesisTargets;
  close(): Promise<void>;
}

export async function startStage(options: StageOptions): Promise<Stage> {
  const binaries = await resolveTemporalBinaries();
  if (binaries.cli.kind !== 'path') throw new Error('chaos: the Temporal CLI is needed on disk');
  const cliPath = binaries.cli.path;
  const dir = options.keepDir ?? mkdtempSync(join(tmpdir(), 'amsflow-chaos-'));
  if (options.keepDir) mkdirSync(dir, { recursive: true });
  const dbFile = join(dir, 'temporal.db');
  const port = await freePort();
  let server: RunningDevServer = await startDevServer({ cliPath, dbFile, port, uiPort: false });
  const connection = await openConnection({ address: server.address });
  const client = new Client({ connection, interceptors: ASK_AGAIN_INTERCEPTORS });
  const tag = randomUUID().slice(0, 6);
  const agents = Array.from({ length: options.agents }, (_, i) => ({
    id: `chaos${tag}-${i}`,
    token: `token-${tag}-${i}-${randomUUID()}`,
    creator: 'user:4242',
  }));
  const sim = await startSimulator({
    port: 0,
    limits: { windowMs: options.windowMs },
    agents,
    unreadGraceMs: options.unreadGraceMs,
  });
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

  const workers = superviseWorkers({
    count: options.workers,
    optionsFor: () => workerOptions,
    log: (line) => options.log(line),
    keepOutput: Boolean(options.keepDir),
  });
  // The first workers are up before the humans start.
  await workers.ready();

  return {
    sim,
    client,
    agents: agents.map((a) => a.id),
    taskQueue,
    killWorker: (pick) => workers.kill(pick),
    unexpectedExits: () => workers.unexpectedExits(),
    async restartServer() {
      await server.stop();
      server = await startDevServer({ cliPath, dbFile, port, uiPort: false, portWaitMs: 20_000 });
    },
    async close() {
      await workers.close();
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
        writeFileSync(join(dir, 'workers.log'), workers.exitedOutput.join('\n'));
        options.log(`chaos: kept the database, transcripts and worker output in ${dir}`);
      }
      await sim.close();
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
