/**
 * Many workers, one fleet (issue 40, point 3): worker processes sharing the agents of one
 * simulator, as a fleet on several machines does. One worker is SIGKILLed: each agent whose poll
 * it held polls again on another worker; it is started again; another is stopped with SIGTERM: its
 * agents move. Between the steps every agent answers a human. Measured: when each agent of the
 * killed (then the stopped) worker polled the service again (the simulator's log: the request's
 * arrival), against the moment of the kill; every reply exactly once; polls at once (a 409 the
 * service gave because a newer poll of the agent came while one was open).
 *
 * How agents spread: they do not belong to a worker. Every worker serves every agent's task queues;
 * an agent's workflow task goes to the worker that caches its workflow (sticky), and each poll
 * activity to whichever worker asks first. A worker that comes takes polls as agents poll again; a
 * worker that goes leaves its open polls to be noticed (SIGKILL: the poll's heartbeat timeout;
 * SIGTERM: it fails them as it stops) and polled again by the others.
 *
 * Each worker has its own data dir and temporary directory (its poll tickets): a machine of its
 * own, so that a kill is noticed as on another machine, not through the tickets a worker started
 * again on the same machine reads.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { mapLimited } from '../core/map-limited';
import { agentWorkflowId, type AgentTuning } from '../protocol';
import { startSimulator, type RunningSimulator } from '../simulator';
import { allPolled, echoTraffic } from '../bench/chat-traffic';
import { percentiles, type Percentiles } from '../bench/percentiles';
import { startBenchWorker, type BenchWorker } from '../bench/worker-process';
import { pollIsOpen } from '../worker/observability/agent-health';

export interface FailoverOptions {
  temporal: { address: string; client: Client };
  agents: number;
  workers: number;
  limits: Record<string, number>;
  tuning?: AgentTuning;
  /** A prebuilt workflow bundle (bench/worker-process.ts). */
  workflowBundle?: string;
  /** Longest wait for a step (every agent polling again, every echo). Default 120 s. */
  stepTimeoutMs?: number;
  progress?: (line: string) => void;
}

/** How the agents of a worker that went polled again. */
export interface Move {
  /** Agents whose poll the worker held when it went. */
  agents: number;
  /** From the signal to each one's next poll arriving at the service (ms). */
  pollAgain: Percentiles;
}

export interface FailoverResult {
  agents: number;
  workers: number;
  killed: Move;
  stopped: Move;
  /** Echoes written over the run, answered, and answered more than once. */
  echoes: { written: number; answered: number; doubled: number };
  /** 409s the service gave because two polls of one agent were open at once. */
  concurrentPolls: number;
}

/** A worker process of the fleet, with its own machine (data dir, temporary directory). */
interface FleetWorker {
  process: BenchWorker;
  dir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the scenario; see the module comment. */
export async function runFleetFailover(options: FailoverOptions): Promise<FailoverResult> {
  const tag = randomUUID().slice(0, 6);
  const say = options.progress ?? (() => undefined);
  const stepMs = options.stepTimeoutMs ?? 120_000;
  const agents = Array.from({ length: options.agents }, (_, i) => ({
    id: `m${tag}-${i}`,
    token: `token-${tag}-${i}-${randomUUID()}`,
    creator: 'user:4242',
  }));
  const keys = agents.map((a) => a.id);
  const sim = await startSimulator({ port: 0, limits: options.limits, agents });
  const taskQueue = `fleet-failover-${tag}`;
  const workers: FleetWorker[] = [];
  const start = async (dir?: string): Promise<FleetWorker> => {
    const own = dir ?? mkdtempSync(join(tmpdir(), 'amsflow-fleet-machine-'));
    const child = await startBenchWorker({
      temporalAddress: options.temporal.address,
      simulatorUrl: sim.url,
      agents: agents.map((a) => ({ agentKey: a.id, token: a.token })),
      taskQueue,
      limits: options.limits,
      ...(options.tuning ? { tuning: options.tuning } : {}),
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
      env: { AMSFLOW_DATA_DIR: join(own, 'data'), TMPDIR: own },
    }).catch((err: unknown) => {
      if (dir === undefined) rmSync(own, { recursive: true, force: true });
      throw err;
    });
    return { process: child, dir: own };
  };
  const echoes = { written: 0, answered: 0 };
  const round = async (name: string) => {
    const result = await echoTraffic(sim, keys, {
      perSecond: 50,
      messages: keys.length,
      tag: `${name}-`,
      graceMs: stepMs,
    });
    echoes.written += result.written;
    echoes.answered += result.answered;
    say(`fleet failover: round ${name}: ${result.answered}/${result.written} answered`);
  };
  try {
    for (let i = 0; i < options.workers; i++) workers.push(await start());
    await allPolled(sim, keys.length, stepMs);
    say(`fleet failover: ${keys.length} agents polling on ${options.workers} workers`);
    await round('a');

    const victim = await busiest(options.temporal.client, keys, workers, stepMs);
    say(`fleet failover: SIGKILL of pid ${victim.worker.process.pid}, holding ${victim.agents.length} polls`);
    const killedAt = Date.now();
    await victim.worker.process.kill();
    const killed = await pollsAgain(sim, victim.agents, killedAt, stepMs);
    await round('b');

    say('fleet failover: the killed worker starts again');
    workers[workers.indexOf(victim.worker)] = await start(victim.worker.dir);
    await round('c');

    const leaving = await busiest(options.temporal.client, keys, workers, stepMs);
    say(
      `fleet failover: SIGTERM of pid ${leaving.worker.process.pid}, holding ${leaving.agents.length} polls`,
    );
    const stoppedAt = Date.now();
    process.kill(leaving.worker.process.pid, 'SIGTERM');
    await leaving.worker.process.exited;
    const stopped = await pollsAgain(sim, leaving.agents, stoppedAt, stepMs);
    await round('d');

    return {
      agents: keys.length,
      workers: options.workers,
      killed: { agents: victim.agents.length, pollAgain: percentiles(killed) },
      stopped: { agents: leaving.agents.length, pollAgain: percentiles(stopped) },
      echoes: { ...echoes, doubled: await doubledReplies(sim, keys) },
      concurrentPolls: await concurrentPolls(sim, keys),
    };
  } finally {
    await close(options.temporal.client, sim, workers, keys);
  }
}

/**
 * The worker holding the most open polls (at least one) once every agent's poll is open on a
 * worker, and the agents whose polls it holds (a poll activity's last worker identity: pid@host).
 */
async function busiest(
  client: Client,
  keys: string[],
  workers: FleetWorker[],
  timeoutMs: number,
): Promise<{ worker: FleetWorker; agents: string[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const holders = await mapLimited(keys, 16, (key) => pollHolder(client, key));
    if (holders.every((h) => h !== undefined)) {
      const byWorker = workers.map((worker) => ({
        worker,
        agents: keys.filter((_, i) => holders[i].startsWith(`${worker.process.pid}@`)),
      }));
      const most = byWorker.reduce((a, b) => (b.agents.length > a.agents.length ? b : a));
      if (most.agents.length > 0) return most;
    }
    if (Date.now() > deadline)
      throw new Error("fleet failover: the agents' polls did not all open on the workers");
    await sleep(200);
  }
}

/** The identity of the worker running `agentKey`'s poll activity, if one runs. */
async function pollHolder(client: Client, agentKey: string): Promise<string | undefined> {
  const { raw } = await client.workflow.getHandle(agentWorkflowId(agentKey)).describe();
  const poll = (raw.pendingActivities ?? []).find((a) => pollIsOpen([a]) && a.lastWorkerIdentity);
  return poll?.lastWorkerIdentity ?? undefined;
}

/** For each of `agents`, the time from `since` to its first poll arriving after it (waits for all). */
async function pollsAgain(
  sim: RunningSimulator,
  agents: string[],
  since: number,
  timeoutMs: number,
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const firsts = await mapLimited(agents, 16, async (agent) => {
      const polls = (await sim.control.log(agent)).filter(
        (e) => e.endpoint === 'updates' && e.receivedAt > since,
      );
      return polls.length > 0 ? Math.min(...polls.map((e) => e.receivedAt)) - since : undefined;
    });
    if (firsts.every((ms) => ms !== undefined)) return firsts;
    if (Date.now() > deadline) {
      const missing = agents.filter((_, i) => firsts[i] === undefined);
      throw new Error(`fleet failover: ${missing.length} agent(s) did not poll again: ${missing.join(', ')}`);
    }
    await sleep(100);
  }
}

/** Replies whose text went out more than once (each echo's text is unique). */
async function doubledReplies(sim: RunningSimulator, keys: string[]): Promise<number> {
  const counts = await mapLimited(keys, 16, async (agent) => {
    const texts = (await sim.control.transcript({ agent })).sent.map(
      (s) => (s.body as { text?: { body?: string } }).text?.body,
    );
    return texts.length - new Set(texts).size;
  });
  return counts.reduce((a, b) => a + b, 0);
}

/** 409s of two polls at once: not injected, and not replacing a request its client had already closed. */
async function concurrentPolls(sim: RunningSimulator, keys: string[]): Promise<number> {
  const counts = await mapLimited(
    keys,
    16,
    async (agent) =>
      (await sim.control.log(agent)).filter(
        (e) => e.endpoint === 'updates' && e.status === 409 && !e.fault && !e.replacedByAbandoned,
      ).length,
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function close(
  client: Client,
  sim: RunningSimulator,
  workers: FleetWorker[],
  keys: string[],
): Promise<void> {
  await Promise.all(workers.map((w) => w.process.kill()));
  await mapLimited(keys, 16, (key) =>
    client.workflow
      .getHandle(agentWorkflowId(key))
      .terminate('fleet failover over')
      .catch(() => undefined),
  );
  await sim.close();
  for (const w of workers) rmSync(w.dir, { recursive: true, force: true });
}
