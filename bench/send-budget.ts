/**
 * Send budget and priority lanes (issue 21, point 5): `sends` messages requested by one handler
 * (the `burst` command of bench/workflows.ts) in two waves, the second `secondWaveAfterMs` later,
 * at `limit` per `windowMs` (the spec's 12 per 60 s in a full run; scaled to 6 s in `--quick`).
 * Each send's completion offset (accepted by the service − requested) is set against the
 * optimum: the first `limit` at once, then one as each ages out of the window (send i at
 * ⌊i / limit⌋ × windowMs; the second wave arrives while the first still queues, so the optimum
 * is the same). bench/send-burst.ts measures one burst.
 *
 * Two bursts on the same agent: a baseline, then the same burst while the human writes a
 * `typing` message every `statusEveryMs` (each is marked read, riding with the poll activity,
 * and shows the typing indicator: their own windows) and `reminders` reminders fall due between
 * the two waves. With priority lanes, no reply leaves later than in the baseline (the per-send
 * difference, p50 ≤ 50 ms) and every reply of the burst leaves before the first reminder.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { startSimulator, type RunningSimulator } from '../simulator';
import type { RunningAmsflow } from '../worker/run';
import { startAmsflowAgent, type BenchTemporal } from './latency';
import { waitUntil } from './wait-until';
import { scaledTuning } from './scaled-tuning';
import { burst, p50max, type BurstFigures } from './send-burst';
import type { Series } from './svg';

export type { BurstFigures };

export interface SendBudgetOptions {
  sends: number;
  windowMs: number;
  limit: number;
  /** Default: windowMs / 6. */
  statusEveryMs?: number;
  /** Default: windowMs / 2. */
  secondWaveAfterMs?: number;
  /** Reminders due between the waves of the second burst (default 3). */
  reminders?: number;
}

/** What {@link measureSendBudget} measures. */
export interface SendBudgetResult {
  sends: number;
  windowMs: number;
  limit: number;
  statusEveryMs: number;
  secondWaveAfterMs: number;
  reminders: number;
  /** Optimum offset of each send: ⌊i / limit⌋ × windowMs. */
  optimumMs: number[];
  baseline: BurstFigures;
  withStatuses: BurstFigures;
  /** Per send, offset with mark-reads, typing and reminders − the baseline's: p50 and max (ms). */
  statusDelayMs: { p50: number; max: number };
  /** The same over the second wave only (the sends requested after the reminders fell due). */
  secondWaveDelayMs: { p50: number; max: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the bench bot for one agent on its own simulator; resolves once it has answered a warm-up. */
async function startAgent(temporal: BenchTemporal, windowMs: number, limit: number) {
  const agent = {
    id: `budget-${randomUUID().slice(0, 8)}`,
    token: `token-${randomUUID()}`,
    creator: 'user:4242',
  };
  const limits = { windowMs, messages: limit };
  // Only the immediate 'sent' receipts: 'delivered' comes after the run, 'read' never.
  const sim = await startSimulator({
    port: 0,
    limits,
    receipts: { deliveredAfterMs: 3_600_000, readAfterMs: null },
    agents: [agent],
  });
  let amsflow: RunningAmsflow | undefined;
  try {
    amsflow = await startAmsflowAgent({
      temporalAddress: temporal.address,
      sim,
      agentKey: agent.id,
      token: agent.token,
      limits,
      // At the spec's window the defaults; scaled, as the engine suites scale the tuning.
      tuning: windowMs >= 60_000 ? undefined : scaledTuning(windowMs),
      workflows: resolve(__dirname, 'workflows.ts'),
    });
    await sim.control.humanText('echo warmup', { agent: agent.id });
    await waitUntil(
      'the warm-up reply',
      async () => (await sim.control.transcript({ agent: agent.id })).sent.length >= 1,
      60_000,
    );
  } catch (err) {
    await amsflow?.shutdown();
    await sim.close();
    throw err;
  }
  return { agentKey: agent.id, sim, amsflow };
}

async function stopAgent(
  temporal: BenchTemporal,
  a: { agentKey: string; sim: RunningSimulator; amsflow: RunningAmsflow },
) {
  await a.amsflow.shutdown();
  for (const id of [`agent:${a.agentKey}`, `reminders:${a.agentKey}`])
    await temporal.client.workflow
      .getHandle(id)
      .terminate('bench over')
      .catch(() => undefined);
  await a.sim.close();
}

/**
 * Runs the send-budget bench on its own simulator and an in-process amsflow (bench/workflows.ts)
 * on `temporal`: a warm-up echo, the baseline burst, then the burst with mark-reads, typing and
 * reminders. About 2 × ⌈sends / limit⌉ windows plus two more and start-up.
 */
export async function measureSendBudget(
  temporal: BenchTemporal,
  options: SendBudgetOptions,
): Promise<SendBudgetResult> {
  const { sends, windowMs, limit } = options;
  const statusEveryMs = options.statusEveryMs ?? Math.round(windowMs / 6);
  const secondWaveAfterMs = options.secondWaveAfterMs ?? Math.round(windowMs / 2);
  const reminders = options.reminders ?? 3;
  const a = await startAgent(temporal, windowMs, limit);
  try {
    // The warm-up send leaves the window before the burst.
    await sleep(windowMs + 300);
    const run = { sends, windowMs, limit, statusEveryMs, secondWaveAfterMs };
    const base = await burst(temporal, a.sim, a.agentKey, { ...run, tag: 'base', withStatuses: false });
    // Every send of the baseline leaves the window before the next burst; its reminders are set meanwhile.
    const burstAt = base.lastAt + windowMs + 300;
    await a.sim.control.humanText(`remind ${burstAt + Math.round(secondWaveAfterMs / 2)} ${reminders} busy`, {
      agent: a.agentKey,
    });
    await sleep(Math.max(0, burstAt - Date.now()));
    const busy = await burst(temporal, a.sim, a.agentKey, {
      ...run,
      tag: 'busy',
      withStatuses: true,
      reminders,
    });
    const diff = (from: number) =>
      p50max(
        busy.figures.offsetsMs
          .map((v, i) => v - (base.figures.offsetsMs[i] ?? NaN))
          .slice(from)
          .filter(Number.isFinite),
      );
    return {
      ...run,
      reminders,
      optimumMs: Array.from({ length: sends }, (_, i) => Math.floor(i / limit) * windowMs),
      baseline: base.figures,
      withStatuses: busy.figures,
      statusDelayMs: diff(0),
      secondWaveDelayMs: diff(Math.ceil(sends / 2)),
    };
  } finally {
    await stopAgent(temporal, a);
  }
}

/**
 * The data of the send-budget plot: sends accepted (cumulative) against seconds since they were
 * requested, for the optimum and each burst (step series, for {@link lineChart} of bench/svg.ts).
 */
export function sendBudgetSeries(result: SendBudgetResult): Series[] {
  const steps = (offsets: number[]): { x: number; y: number }[] => [
    { x: 0, y: 0 },
    ...offsets.map((ms, i) => ({ x: ms / 1000, y: i + 1 })),
  ];
  return [
    { name: 'optimum', points: steps(result.optimumMs), step: true, dashed: true },
    { name: 'amsflow', points: steps(result.baseline.offsetsMs), step: true },
    {
      name: 'amsflow + mark-reads, typing, reminders',
      points: steps(result.withStatuses.offsetsMs),
      step: true,
    },
  ];
}
