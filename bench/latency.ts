/**
 * Added latency of durability: the human writes, the agent's echo reply is accepted by the
 * service. Measured for amsflow (the reference bot, `echo <text>` answered `<text>`, on a real
 * Temporal dev server) and for a plain, non-durable loop on the same MessagingClient
 * (bench/plain-loop.ts), in the same run against the same simulator. The two agents write
 * alternately (each one message per `spacingMs`, offset by half of it) with limits raised, so
 * that neither the service's pacing nor the other agent's burst shows in the figures. Also the
 * breakdown of amsflow's latency per hop, from the agent workflow's history (bench/breakdown.ts).
 *
 * Here too: the bench's Temporal server ({@link startBenchTemporal}, stock or embedded) and the
 * helpers the other sections share (an in-process amsflow agent, waiting on a condition).
 */
import type { AgentTuning } from '../protocol';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../tools/temporal-connection';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { MessagingClient } from '../messaging/client';
import { startSimulator, type RunningSimulator } from '../simulator';
import { resolveTemporalBinaries } from '../tools/temporal-binaries';
import { loadConfig } from '../worker/config';
import { startDevServer, type RunningDevServer } from '../worker/dev-server';
import { runAmsflow, type RunningAmsflow } from '../worker/run';
import { historyBreakdown, type Breakdown } from './breakdown';
import { percentiles, type Percentiles } from './percentiles';
import { startPlainLoop, type PlainLoop } from './plain-loop';
import { sleep, waitUntil } from './wait-until';

/** Which Temporal dev server a part of the bench runs on. */
export type ServerKind = 'stock' | 'embedded';

/** What each kind is, as the report says it. */
export const SERVER_KINDS: Record<ServerKind, string> = {
  stock:
    'stock: the Temporal CLI’s `temporal server start-dev --db-filename <file>` as a user runs it, ' +
    'SQLite with its defaults (a rollback journal, every commit synced; no `--sqlite-pragma`)',
  embedded:
    'embedded: amsflow’s own dev server (worker/dev-server.ts, what `npm start` runs): the same CLI ' +
    'with SQLite on a write-ahead log, `synchronous=normal`',
};

/** A Temporal dev server in a temp dir, with a client; `close()` stops both and removes the dir. */
export interface BenchTemporal {
  kind: ServerKind;
  address: string;
  /** The dev server's process, for its CPU and memory. */
  serverPid: number;
  /** The dev server's own Prometheus metrics (bench/server-cost.ts reads its writes and actions). */
  metricsUrl: string;
  client: Client;
  close(): Promise<void>;
}

/**
 * Starts a dev server for the bench: `stock` runs SQLite as `temporal server start-dev
 * --db-filename` does (`sqlitePragmas: false`), else the embedded server's defaults. Both in a
 * temp dir, headless, on free ports.
 */
export async function startBenchTemporal({
  stock = false,
}: { stock?: boolean } = {}): Promise<BenchTemporal> {
  try {
    // The workers' INFO and WARN lines (e.g. activity-only workers polling no workflows) would bury the figures.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed already.
  }
  const binaries = await resolveTemporalBinaries();
  if (binaries.cli.kind !== 'path') throw new Error('The Temporal CLI is needed on disk for the dev server');
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-bench-'));
  let server: RunningDevServer | undefined;
  try {
    server = await startDevServer({
      cliPath: binaries.cli.path,
      dbFile: join(dir, 'temporal.db'),
      uiPort: false,
      metricsPort: 0,
      ...(stock ? { sqlitePragmas: false as const } : {}),
    });
    const connection = await openConnection({ address: server.address });
    const started = server;
    return {
      kind: stock ? 'stock' : 'embedded',
      address: server.address,
      serverPid: server.pid,
      metricsUrl: server.metricsUrl!,
      client: new Client({ connection }),
      async close() {
        await connection.close().catch(() => undefined);
        await started.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Starts amsflow in this process for one agent of `sim` (quiet: its log lines are kept, not printed). */
export async function startAmsflowAgent(options: {
  temporalAddress: string;
  sim: RunningSimulator;
  agentKey: string;
  token: string;
  limits: Record<string, number>;
  tuning?: AgentTuning;
  workflows?: string;
}): Promise<RunningAmsflow> {
  const config = loadConfig({
    AMS_TOKEN: options.token,
    AMS_BASE_URL: options.sim.url,
    TEMPORAL_ADDRESS: options.temporalAddress,
    AMSFLOW_TASK_QUEUE: `bench-${options.agentKey}`,
    AMSFLOW_AGENT: options.agentKey,
    AMSFLOW_METRICS_PORT: '0',
    AMSFLOW_LIMITS: JSON.stringify(options.limits),
    ...(options.tuning ? { AMSFLOW_TUNING: JSON.stringify(options.tuning) } : {}),
    ...(options.workflows ? { AMSFLOW_WORKFLOWS: options.workflows } : {}),
  });
  return runAmsflow(config, () => undefined);
}

export interface LatencyResult {
  messages: number;
  spacingMs: number;
  amsflow: Percentiles;
  plain: Percentiles;
  /** amsflow minus plain, per percentile. */
  addedMs: { p50: number; p95: number; p99: number };
  /** amsflow ÷ plain, per percentile. */
  ratio: { p50: number; p95: number; p99: number };
  status429: { amsflow: number; plain: number };
  breakdown?: Breakdown;
  /** Each message's latency (ms), per side: the distributions the plots draw. */
  samples: { amsflow: number[]; plain: number[] };
}

const RAISED = 1000;

type Agent = { id: string; token: string; creator: string };
type Written = { agent: string; text: string; id: string; at: number };

/** When each reply of `agent` was accepted, by its text; and the agent's 429s. */
async function repliesOf(sim: RunningSimulator, agent: string) {
  const t = await sim.control.transcript({ agent });
  const byText = new Map<string, number>();
  for (const s of t.sent) {
    const body = (s.body as { text?: { body?: string } }).text?.body;
    if (body !== undefined && !byText.has(body)) byText.set(body, s.realAt);
  }
  return { byText, status429: Object.values(t.counts.status429).reduce((a, b) => a + b, 0) };
}

/** Both agents poll and have answered a warm-up (first workflow start, first connection), not counted. */
async function warmUp(sim: RunningSimulator, agents: Agent[]): Promise<void> {
  const each = async (check: (a: Agent) => Promise<boolean>) =>
    (await Promise.all(agents.map(check))).every(Boolean);
  await waitUntil(
    'both agents to poll',
    () => each(async (a) => (await sim.control.transcript({ agent: a.id })).counts.requests.updates > 0),
    60_000,
  );
  for (const a of agents) await sim.control.humanText('echo warmup', { agent: a.id });
  await waitUntil(
    'the warm-up replies',
    () => each(async (a) => (await sim.control.transcript({ agent: a.id })).sent.length >= 1),
    30_000,
  );
}

/** `messages` echoes to each agent, one per `spacingMs` each, the agents offset by half of it. */
async function writeAlternately(sim: RunningSimulator, agents: Agent[], messages: number, spacingMs: number) {
  const written: Written[] = [];
  const start = Date.now();
  for (let i = 0; i < messages; i++) {
    for (const [k, agent] of agents.entries()) {
      await sleep(Math.max(0, start + i * spacingMs + (k * spacingMs) / agents.length - Date.now()));
      const text = `m${i}`;
      const at = Date.now();
      const { id } = await sim.control.humanText(`echo ${text}`, { agent: agent.id });
      written.push({ agent: agent.id, text, id, at });
    }
  }
  return written;
}

type Replies = Awaited<ReturnType<typeof repliesOf>>;

/** The figures of both sides; the breakdown is amsflow's, from its agent workflow's history. */
async function figures(
  temporal: BenchTemporal,
  o: {
    messages: number;
    spacingMs: number;
    durable: string;
    plain: string;
    written: Written[];
    a: Replies;
    p: Replies;
  },
): Promise<LatencyResult> {
  const lat = (agent: string, replies: Map<string, number>) =>
    o.written.filter((w) => w.agent === agent && replies.has(w.text)).map((w) => replies.get(w.text)! - w.at);
  const samples = {
    amsflow: lat(o.durable, o.a.byText),
    plain: lat(o.plain, o.p.byText),
  };
  const amsflow = percentiles(samples.amsflow);
  const plain = percentiles(samples.plain);
  const per = (f: (a: number, b: number) => number, digits: number) => ({
    p50: +f(amsflow.p50Ms, plain.p50Ms).toFixed(digits),
    p95: +f(amsflow.p95Ms, plain.p95Ms).toFixed(digits),
    p99: +f(amsflow.p99Ms, plain.p99Ms).toFixed(digits),
  });
  const mine = o.written
    .filter((w) => w.agent === o.durable)
    .map((w) => ({ ...w, acceptedAt: o.a.byText.get(w.text) }));
  const breakdown = await historyBreakdown(temporal.client, o.durable, mine).catch((err: Error) => {
    console.error(`bench: no breakdown (${err.message})`);
    return undefined;
  });
  return {
    messages: o.messages,
    spacingMs: o.spacingMs,
    amsflow,
    plain,
    addedMs: per((x, y) => x - y, 1),
    ratio: per((x, y) => x / y, 2),
    status429: { amsflow: o.a.status429, plain: o.p.status429 },
    breakdown,
    samples,
  };
}

/** The amsflow side of a latency run, started for its agent (the default: in this process). */
export interface LatencySide {
  /** After the warm-up, before the first counted echo (e.g. a CPU meter's start). */
  measuring?(): Promise<void>;
  /** Once every counted reply is in (or given up on), before the shutdown. */
  measured?(): void;
  shutdown(): Promise<void>;
}

export type StartLatencySide = (o: {
  temporal: BenchTemporal;
  sim: RunningSimulator;
  agentKey: string;
  token: string;
  limits: Record<string, number>;
}) => Promise<LatencySide>;

/** amsflow in this process, as the latency section runs it. */
const inProcess: StartLatencySide = (o) =>
  startAmsflowAgent({
    temporalAddress: o.temporal.address,
    sim: o.sim,
    agentKey: o.agentKey,
    token: o.token,
    limits: o.limits,
  });

/**
 * The latency section: `messages` echoes to amsflow and to the plain loop, alternately. `start`
 * runs the amsflow side (default: in this process; bench/tracing-cost.ts runs a worker process).
 */
export async function measureAddedLatency(
  temporal: BenchTemporal,
  { messages, spacingMs }: { messages: number; spacingMs: number },
  start: StartLatencySide = inProcess,
): Promise<LatencyResult> {
  const id = randomUUID().slice(0, 8);
  const durable = { id: `lat-amsflow-${id}`, token: `token-a-${randomUUID()}`, creator: 'user:4242' };
  const plainAgent = { id: `lat-plain-${id}`, token: `token-p-${randomUUID()}`, creator: 'user:4242' };
  // Raised limits (same window): the figures are latency, not the service's pacing.
  const limits = { messages: RAISED, statuses: RAISED, typing: RAISED, updates: RAISED };
  const sim = await startSimulator({ port: 0, limits, agents: [durable, plainAgent] });
  const plainClient = new MessagingClient({ token: plainAgent.token, baseUrl: sim.url, limits });
  let amsflow: LatencySide | undefined;
  let plain: PlainLoop | undefined;
  try {
    amsflow = await start({ temporal, sim, agentKey: durable.id, token: durable.token, limits });
    plain = startPlainLoop(plainClient);
    await warmUp(sim, [durable, plainAgent]);
    await amsflow.measuring?.();
    const written = await writeAlternately(sim, [durable, plainAgent], messages, spacingMs);
    const both = () => Promise.all([repliesOf(sim, durable.id), repliesOf(sim, plainAgent.id)]);
    await waitUntil(
      'every reply',
      async () => {
        const [a, p] = await both();
        return written.every((w) => (w.agent === durable.id ? a : p).byText.has(w.text));
      },
      30_000,
    ).catch((err: Error) => console.error(err.message));
    amsflow.measured?.();
    const [a, p] = await both();
    return await figures(temporal, {
      messages,
      spacingMs,
      durable: durable.id,
      plain: plainAgent.id,
      written,
      a,
      p,
    });
  } finally {
    await plain?.stop();
    await plainClient.close();
    await amsflow?.shutdown();
    await temporal.client.workflow
      .getHandle(`agent:${durable.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  }
}
