/**
 * Agents per worker: one real worker process (`worker/main.ts`) serving 1, 10, 100, 1,000 (and
 * 10,000) agents of one simulator, on the bench's dev server. For each count: how long until the
 * worker runs and until every agent has polled the service (the simulator's totals), the
 * worker's RSS (now and at its peak), an idle stretch (CPU, history events per idle agent), and
 * echo traffic at a low rate (p50/p99, set against a single agent's). The worker's heap limit
 * (`--max-old-space-size`) and workflow-cache bound are options, reported with the figures.
 * Limits are raised (1000 a window): the figures are the engine's, not the service's pacing.
 * `startFleet` is the throughput section's fleet too.
 */
import { randomUUID } from 'node:crypto';
import { mapLimited } from '../core/map-limited';
import { startSimulator, type RunningSimulator } from '../simulator';
import { allPolled, echoTraffic, type TrafficResult } from './chat-traffic';
import type { BenchTemporal } from './latency';
import { cpuMeter, peakRssMb, rssMb } from './proc-stats';
import { raisedLimits } from './scaled-tuning';
import { scrapeServer, stretchCost, type StretchCost } from './server-cost';
import { startBenchWorker, type BenchWorker } from './worker-process';

const LIMITS = raisedLimits(1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How the fleet's worker process runs. */
export interface FleetWorkerSettings {
  /** `--max-old-space-size` of the worker (MB); default: Node's. */
  heapMb?: number;
  /** `AMSFLOW_MAX_CACHED_WORKFLOWS`; default: the worker's own bound, which follows the heap. */
  maxCachedWorkflows?: number;
  /** A prebuilt workflow bundle (bench/worker-process.ts). */
  workflowBundle?: string;
}

export interface FleetOptions extends FleetWorkerSettings {
  agentCounts: number[];
  idleMs: number;
  lowRate: { perSecond: number; messages: number };
  progress(line: string): void;
}

export interface FleetRow {
  agents: number;
  /** Spawn → `amsflow: running` (every agent's workflow started, 32 at a time). */
  workerStartMs: number;
  /** Spawn → every agent has polled the service at least once. */
  pollingMs: number;
  /** Once every agent polls (and 5 s more). */
  workerRssMb: number;
  serverRssMb: number;
  idle: {
    workerCores: number;
    serverCores: number;
    eventsPerAgentMinute: number;
    /** The server's own counters over the idle stretch (bench/server-cost.ts); none in results before them. */
    server?: StretchCost;
  };
  lowRate: { perSecond: number } & Omit<TrafficResult, 'samples'>;
  workerRssAfterMb: number;
  /** The worker's peak RSS (VmHWM) over the whole row. */
  workerRssPeakMb: number;
}

export interface FleetResult {
  rows: FleetRow[];
  /** Agent counts whose row could not be measured (the worker did not start, not every agent polled in 10 minutes, ...). */
  failed: { agents: number; error: string }[];
  /** The worker's settings: `heapMb` and `maxCachedWorkflows` undefined = the defaults. */
  worker: { heapMb?: number; maxCachedWorkflows?: number };
}

export interface Fleet {
  sim: RunningSimulator;
  worker: BenchWorker;
  agents: string[];
  close(): Promise<void>;
}

/** A simulator with `count` agents and one worker process serving them all. */
export async function startFleet(
  temporal: BenchTemporal,
  count: number,
  settings: FleetWorkerSettings = {},
): Promise<Fleet> {
  const tag = randomUUID().slice(0, 6);
  const agents = Array.from({ length: count }, (_, i) => ({
    id: `f${tag}-${i}`,
    token: `token-${tag}-${i}-${randomUUID()}`,
    creator: 'user:4242',
  }));
  const sim = await startSimulator({ port: 0, limits: LIMITS, agents });
  let worker: BenchWorker;
  try {
    worker = await startBenchWorker({
      temporalAddress: temporal.address,
      simulatorUrl: sim.url,
      agents: agents.map((a) => ({ agentKey: a.id, token: a.token })),
      taskQueue: `fleet-${tag}`,
      limits: LIMITS,
      workflowBundle: settings.workflowBundle,
      nodeArgs: settings.heapMb ? [`--max-old-space-size=${settings.heapMb}`] : [],
      env: settings.maxCachedWorkflows
        ? { AMSFLOW_MAX_CACHED_WORKFLOWS: String(settings.maxCachedWorkflows) }
        : {},
      readyTimeoutMs: 600_000,
    });
  } catch (err) {
    await sim.close();
    throw err;
  }
  return {
    sim,
    worker,
    agents: agents.map((a) => a.id),
    async close() {
      await worker.stop();
      // Nothing of this fleet may go on loading the server during the next one.
      await mapLimited(agents, 32, (a) =>
        temporal.client.workflow
          .getHandle(`agent:${a.id}`)
          .terminate('bench over')
          .catch(() => undefined),
      );
      await sim.close();
    },
  };
}

/** History events of up to 20 agents' workflows, summed (for the idle cost). */
async function sampleEvents(temporal: BenchTemporal, agents: string[]): Promise<number> {
  const sample = agents.slice(0, 20);
  const lengths = await mapLimited(
    sample,
    8,
    async (a) => (await temporal.client.workflow.getHandle(`agent:${a}`).describe()).historyLength,
  );
  return lengths.reduce((x, y) => x + y, 0);
}

/** CPU, history events and the server's writes and actions of an idle stretch of `idleMs`. */
async function idleStretch(temporal: BenchTemporal, fleet: Fleet, idleMs: number): Promise<FleetRow['idle']> {
  const events0 = await sampleEvents(temporal, fleet.agents);
  const w = cpuMeter(fleet.worker.pid);
  const s = cpuMeter(temporal.serverPid);
  const counters0 = await scrapeServer(temporal.metricsUrl);
  const started = Date.now();
  await sleep(idleMs);
  const counters1 = await scrapeServer(temporal.metricsUrl);
  const stretchMs = Date.now() - started;
  const idleWorker = w.stop();
  const idleServer = s.stop();
  const events1 = await sampleEvents(temporal, fleet.agents);
  const sampled = Math.min(20, fleet.agents.length);
  return {
    workerCores: idleWorker.cores,
    serverCores: idleServer.cores,
    eventsPerAgentMinute: +(((events1 - events0) / sampled) * (60_000 / idleMs)).toFixed(2),
    server: stretchCost(counters0, counters1, fleet.agents.length, stretchMs),
  };
}

/** One row: start the fleet, wait for every agent's first poll, idle, low-rate traffic. */
async function fleetRow(temporal: BenchTemporal, count: number, options: FleetOptions): Promise<FleetRow> {
  options.progress(`fleet: ${count} agent(s): starting the worker`);
  const fleet = await startFleet(temporal, count, options);
  try {
    const polledAt = await allPolled(fleet.sim, count, 600_000);
    const pollingMs = polledAt - fleet.worker.spawnedAt;
    options.progress(
      `fleet: ${count}: running in ${fleet.worker.startupMs} ms, all polling in ${pollingMs} ms`,
    );
    // The first polls' pages and start-up work settle before the memory is read.
    await sleep(5000);
    const workerRssMb = rssMb(fleet.worker.pid);
    const serverRssMb = rssMb(temporal.serverPid);
    const idle = await idleStretch(temporal, fleet, options.idleMs);
    options.progress(
      `fleet: ${count}: idle ${options.idleMs / 1000} s, then ${options.lowRate.perSecond} msg/s`,
    );
    const {
      samples: _s,
      ids: _i,
      ...low
    } = await echoTraffic(fleet.sim, fleet.agents, {
      ...options.lowRate,
      tag: 'l',
    });
    return {
      agents: count,
      workerStartMs: fleet.worker.startupMs,
      pollingMs,
      workerRssMb,
      serverRssMb,
      idle,
      lowRate: { perSecond: options.lowRate.perSecond, ...low },
      workerRssAfterMb: rssMb(fleet.worker.pid),
      workerRssPeakMb: peakRssMb(fleet.worker.pid),
    };
  } finally {
    await fleet.close();
  }
}

export async function measureFleet(temporal: BenchTemporal, options: FleetOptions): Promise<FleetResult> {
  const result: FleetResult = {
    rows: [],
    failed: [],
    worker: { heapMb: options.heapMb, maxCachedWorkflows: options.maxCachedWorkflows },
  };
  for (const count of options.agentCounts) {
    try {
      result.rows.push(await fleetRow(temporal, count, options));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      options.progress(`fleet: ${count} agent(s) failed: ${error}`);
      result.failed.push({ agents: count, error });
    }
  }
  return result;
}
