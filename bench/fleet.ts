/**
 * Agents per worker and messages per second: one real worker process (`worker/main.ts`) serving
 * 1, 10, 100 or 1,000 agents of one simulator, on the bench's dev server. For each count: the
 * start (every agent answering a first echo), the worker's RSS, an idle stretch (CPU and history
 * events per idle agent), and echo traffic at a low rate (p50/p99). For one count, a ladder of
 * rates finds the highest held with p99 under 1 s and every message answered; the cost of one
 * handled message (workflow tasks, activity tasks, history events, CPU ms) comes from the
 * single-agent run. Limits are raised (1000 a window): the figures are the engine's, not the
 * service's pacing.
 */
import { randomUUID } from 'node:crypto';
import { mapLimited } from '../core/map-limited';
import { startSimulator, type RunningSimulator } from '../simulator';
import { collectEchoes, writeEchoes, type TrafficResult } from './chat-traffic';
import type { BenchTemporal } from './latency';
import { messageCost, type MessageCost } from './message-cost';
import { cpuMeter, rssMb } from './proc-stats';
import { raisedLimits } from './scaled-tuning';
import { startBenchWorker, type BenchWorker } from './worker-process';

const LIMITS = raisedLimits(1000);

export interface FleetOptions {
  agentCounts: number[];
  idleMs: number;
  lowRate: { perSecond: number; messages: number };
  ladder: { agents: number; rates: number[]; secondsPerStep: number };
  workflowBundle?: string;
  progress(line: string): void;
}

export interface FleetRow {
  agents: number;
  /** Spawn → every agent has answered a first echo. */
  readyMs: number;
  workerRssMb: number;
  serverRssMb: number;
  idle: { workerCores: number; serverCores: number; eventsPerAgentMinute: number };
  lowRate: { perSecond: number } & Omit<TrafficResult, 'samples'>;
  workerRssAfterMb: number;
}

export interface RateStep {
  perSecond: number;
  written: number;
  answered: number;
  p50Ms: number;
  p99Ms: number;
  workerCores: number;
  serverCores: number;
  /** Worker + server CPU ms per answered message. */
  cpuMsPerMessage: number;
}

export interface FleetResult {
  rows: FleetRow[];
  ladder?: { agents: number; steps: RateStep[]; bestPerSecond: number | null };
  messageCost?: MessageCost;
}

interface Fleet {
  sim: RunningSimulator;
  worker: BenchWorker;
  agents: string[];
  close(): Promise<void>;
}

async function startFleet(temporal: BenchTemporal, count: number, bundle?: string): Promise<Fleet> {
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
      workflowBundle: bundle,
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
      await mapLimited(agents, 16, (a) =>
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

async function traffic(
  fleet: Fleet,
  perSecond: number,
  messages: number,
  tag: string,
  graceMs = 30_000,
): Promise<TrafficResult & { ids: string[] }> {
  const written = await writeEchoes(fleet.sim, fleet.agents, { rate: perSecond, count: messages, tag });
  const result = await collectEchoes(fleet.sim, written, graceMs);
  return { ...result, ids: written.map((w) => w.id!).filter(Boolean) };
}

export async function measureFleet(temporal: BenchTemporal, options: FleetOptions): Promise<FleetResult> {
  const result: FleetResult = { rows: [] };
  for (const count of options.agentCounts) {
    options.progress(`fleet: ${count} agent(s): starting the worker`);
    const fleet = await startFleet(temporal, count, options.workflowBundle);
    try {
      const warm = await traffic(fleet, Math.max(count, 1), count, 'w', 180_000);
      const readyMs = fleet.worker.startupMs + Math.round(warm.latency.maxMs);
      options.progress(
        `fleet: ${count}: ready in ${readyMs} ms (${warm.answered}/${warm.written} warm-up echoes)`,
      );
      // The warm-up's receipts come in for a few seconds more: let them, then watch an idle stretch.
      await new Promise((r) => setTimeout(r, 5000));
      const workerRssMb = rssMb(fleet.worker.pid);
      const serverRssMb = rssMb(temporal.serverPid);
      const events0 = await sampleEvents(temporal, fleet.agents);
      const w = cpuMeter(fleet.worker.pid);
      const s = cpuMeter(temporal.serverPid);
      await new Promise((r) => setTimeout(r, options.idleMs));
      const idleWorker = w.stop();
      const idleServer = s.stop();
      const events1 = await sampleEvents(temporal, fleet.agents);
      const sampled = Math.min(20, count);
      const eventsPerAgentMinute = +(((events1 - events0) / sampled) * (60_000 / options.idleMs)).toFixed(2);
      options.progress(`fleet: ${count}: idle ${options.idleMs / 1000} s, low-rate traffic`);
      const t0 = Date.now();
      const low = await traffic(fleet, options.lowRate.perSecond, options.lowRate.messages, 'l');
      if (count === 1) {
        result.messageCost = await messageCost(
          temporal.client,
          fleet.agents[0],
          low.ids,
          t0,
          Date.now() + 5000,
        );
      }
      const { samples: _s, ids: _i, ...lowFigures } = low;
      result.rows.push({
        agents: count,
        readyMs,
        workerRssMb,
        serverRssMb,
        idle: { workerCores: idleWorker.cores, serverCores: idleServer.cores, eventsPerAgentMinute },
        lowRate: { perSecond: options.lowRate.perSecond, ...lowFigures },
        workerRssAfterMb: rssMb(fleet.worker.pid),
      });
      if (count === options.ladder.agents) result.ladder = await ladder(temporal, fleet, options);
    } finally {
      await fleet.close();
    }
  }
  return result;
}

async function ladder(
  temporal: BenchTemporal,
  fleet: Fleet,
  options: FleetOptions,
): Promise<FleetResult['ladder']> {
  const steps: RateStep[] = [];
  for (const perSecond of options.ladder.rates) {
    options.progress(`fleet: ${fleet.agents.length} agents at ${perSecond} msg/s`);
    const w = cpuMeter(fleet.worker.pid);
    const s = cpuMeter(temporal.serverPid);
    const step = await traffic(fleet, perSecond, perSecond * options.ladder.secondsPerStep, `r${perSecond}-`);
    const wc = w.stop();
    const sc = s.stop();
    steps.push({
      perSecond,
      written: step.written,
      answered: step.answered,
      p50Ms: step.latency.p50Ms,
      p99Ms: step.latency.p99Ms,
      workerCores: wc.cores,
      serverCores: sc.cores,
      cpuMsPerMessage: +((wc.cpuMs + sc.cpuMs) / Math.max(1, step.answered)).toFixed(1),
    });
    const held = step.answered === step.written && step.latency.p99Ms < 1000;
    if (!held) break; // beyond what it holds: higher rates only pile up
  }
  const held = steps.filter((s) => s.answered === s.written && s.p99Ms < 1000);
  return {
    agents: fleet.agents.length,
    steps,
    bestPerSecond: held.length > 0 ? Math.max(...held.map((s) => s.perSecond)) : null,
  };
}
