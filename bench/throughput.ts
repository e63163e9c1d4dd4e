/**
 * Throughput: one worker process serving `agents` (300) agents of one simulator, echo traffic
 * spread over them at a ladder of rates (10, 20, 30, 40 msg/s), each held for a while. Per step:
 * written, answered, p50/p99 (human wrote → echo accepted), and the CPU of the worker, the dev
 * server and this process (the simulator lives here), in cores: where the next wall is. The
 * ladder stops after the first step that is not held (p99 over 1 s or a message unanswered):
 * higher rates would only pile up. The plain loop (bench/plain-loop.ts) climbs the same ladder
 * with one loop per agent in this process, without Temporal: the service's and the simulator's
 * share.
 */
import { randomUUID } from 'node:crypto';
import { startSimulator, type RunningSimulator } from '../simulator';
import { allPolled, echoTraffic } from './chat-traffic';
import { startFleet, type FleetWorkerSettings } from './fleet';
import type { BenchTemporal } from './latency';
import { startPlainLoops } from './plain-loop';
import { cpuMeter, rssMb, selfCpuMeter } from './proc-stats';
import { raisedLimits } from './scaled-tuning';

const LIMITS = raisedLimits(1000);
/** A step is held when every message was answered and p99 is at most this. */
export const HELD_P99_MS = 1000;

export interface ThroughputOptions {
  agents: number;
  rates: number[];
  secondsPerStep: number;
  /** Messages a second of the warm-up (one echo per agent, not counted). */
  warmupPerSecond: number;
  progress(line: string): void;
}

export interface RateStep {
  perSecond: number;
  written: number;
  answered: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU in cores (1 = one core busy) over the step; NaN where there is no such process. */
  workerCores: number;
  serverCores: number;
  /** This process: the simulator (and, for the plain loop, the loops). */
  simulatorCores: number;
  /** Worker + server CPU ms per answered message (NaN for the plain loop). */
  cpuMsPerMessage: number;
}

export interface ThroughputResult {
  agents: number;
  secondsPerStep: number;
  /** Spawn of the worker → every agent has polled (amsflow only). */
  pollingMs?: number;
  steps: RateStep[];
  /** The highest rate held (p99 ≤ 1 s, all answered), or null. */
  bestPerSecond: number | null;
  /** The worker's RSS after the ladder (amsflow only). */
  workerRssMb?: number;
}

/** Whether `step` was held. Pure. */
export const held = (step: Pick<RateStep, 'written' | 'answered' | 'p99Ms'>): boolean =>
  step.answered === step.written && step.p99Ms <= HELD_P99_MS;

interface Ladder {
  sim: RunningSimulator;
  agents: string[];
  workerPid?: number;
  serverPid?: number;
}

async function climb(on: Ladder, o: ThroughputOptions, who: string): Promise<RateStep[]> {
  const steps: RateStep[] = [];
  for (const perSecond of o.rates) {
    o.progress(`throughput, ${who}: ${on.agents.length} agents at ${perSecond} msg/s`);
    const w = on.workerPid ? cpuMeter(on.workerPid) : undefined;
    const s = on.serverPid ? cpuMeter(on.serverPid) : undefined;
    const self = selfCpuMeter();
    const t = await echoTraffic(on.sim, on.agents, {
      perSecond,
      messages: perSecond * o.secondsPerStep,
      tag: `r${perSecond}-`,
    });
    const [wc, sc, bc] = [w?.stop(), s?.stop(), self.stop()];
    const step: RateStep = {
      perSecond,
      written: t.written,
      answered: t.answered,
      p50Ms: t.latency.p50Ms,
      p99Ms: t.latency.p99Ms,
      workerCores: wc?.cores ?? NaN,
      serverCores: sc?.cores ?? NaN,
      simulatorCores: bc.cores,
      cpuMsPerMessage: wc && sc ? +((wc.cpuMs + sc.cpuMs) / Math.max(1, t.answered)).toFixed(1) : NaN,
    };
    steps.push(step);
    if (!held(step)) break;
  }
  return steps;
}

const best = (steps: RateStep[]): number | null => {
  const ok = steps.filter(held);
  return ok.length > 0 ? Math.max(...ok.map((s) => s.perSecond)) : null;
};

/** One echo to every agent, not counted: first tasks and caches are not the ladder's. */
async function warmUp(sim: RunningSimulator, agents: string[], o: ThroughputOptions): Promise<void> {
  const warm = await echoTraffic(sim, agents, {
    perSecond: o.warmupPerSecond,
    messages: agents.length,
    tag: 'w',
    graceMs: 120_000,
  });
  o.progress(`throughput: warm-up ${warm.answered}/${warm.written} answered, p99 ${warm.latency.p99Ms} ms`);
}

/** The ladder for amsflow on `temporal`: one worker process, `o.agents` agents. */
export async function measureThroughput(
  temporal: BenchTemporal,
  o: ThroughputOptions,
  settings: FleetWorkerSettings = {},
): Promise<ThroughputResult> {
  const fleet = await startFleet(temporal, o.agents, settings);
  try {
    const pollingMs = (await allPolled(fleet.sim, o.agents, 300_000)) - fleet.worker.spawnedAt;
    await warmUp(fleet.sim, fleet.agents, o);
    const on = {
      sim: fleet.sim,
      agents: fleet.agents,
      workerPid: fleet.worker.pid,
      serverPid: temporal.serverPid,
    };
    const steps = await climb(on, o, `amsflow (${temporal.kind})`);
    return {
      agents: o.agents,
      secondsPerStep: o.secondsPerStep,
      pollingMs,
      steps,
      bestPerSecond: best(steps),
      workerRssMb: rssMb(fleet.worker.pid),
    };
  } finally {
    await fleet.close();
  }
}

/** The same ladder for plain loops (no Temporal), one per agent, in this process. */
export async function measurePlainThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  const tag = randomUUID().slice(0, 6);
  const agents = Array.from({ length: o.agents }, (_, i) => ({
    id: `p${tag}-${i}`,
    token: `token-${tag}-${i}-${randomUUID()}`,
    creator: 'user:4242',
  }));
  const sim = await startSimulator({ port: 0, limits: LIMITS, agents });
  const loops = startPlainLoops(sim.url, agents, LIMITS);
  try {
    await allPolled(sim, o.agents, 60_000);
    const ids = agents.map((a) => a.id);
    await warmUp(sim, ids, o);
    const steps = await climb({ sim, agents: ids }, o, 'plain loop');
    return { agents: o.agents, secondsPerStep: o.secondsPerStep, steps, bestPerSecond: best(steps) };
  } finally {
    await loops.stop();
    await sim.close();
  }
}
