/**
 * The parts of a run, in order: those measured on each server kind (latency, tracing's cost,
 * throughput, live chat, recovery) and those measured once on the embedded server (cost, send
 * budget, fleet, soak) or without Temporal (the plain loop's throughput). A part that fails is
 * reported as `{ error }` and the run goes on.
 */
import { measureCosts } from './cost';
import { measureFleet } from './fleet';
import { SERVER_KINDS, measureAddedLatency, type BenchTemporal } from './latency';
import { measureLiveChat } from './live-chat';
import type { BenchPlan } from './plan';
import { measureRecovery } from './recovery';
import type { Failed, OnceResults, ServerResults } from './run-results';
import { measureSendBudget } from './send-budget';
import { measureSoak } from './soak';
import { measurePlainThroughput, measureThroughput } from './throughput';
import { abbaOrder, measureTracingCost } from './tracing-cost';

export type Progress = (line: string) => void;

/** Runs `fn`, reporting its start; a failure becomes `{ error }`. */
async function part<T>(progress: Progress, what: string, fn: () => Promise<T>): Promise<T | Failed> {
  progress(what);
  try {
    return await fn();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    progress(`${what}: failed (${message})`);
    return { error: message };
  }
}

/** The reference bot's workflow bundle, prebuilt without tracing (what every part runs) and with it. */
export interface BenchBundles {
  off: string;
  on: string;
}

/** Tracing's cost on `temporal`: rounds of a worker with tracing off and on (bench/tracing-cost.ts). */
export async function tracingSection(
  temporal: BenchTemporal,
  plan: BenchPlan,
  bundles: BenchBundles,
  progress: Progress,
): Promise<ServerResults['tracing']> {
  const x = plan.tracing;
  return part(
    progress,
    `tracing (${temporal.kind} server): ${x.rounds * 2} runs (${abbaOrder(x.rounds).join(', ')}), ${x.messages} echoes each, amsflow and the plain loop`,
    () => measureTracingCost(temporal, { ...x, bundles, progress }),
  );
}

/** The latency section on `temporal`: amsflow in process beside the plain loop (bench/latency.ts). */
export async function latencySection(
  temporal: BenchTemporal,
  plan: BenchPlan,
  progress: Progress,
): Promise<ServerResults['latency']> {
  const l = plan.latency;
  return part(
    progress,
    `latency (${temporal.kind} server): ${l.messages} echoes each, amsflow and the plain loop`,
    () => measureAddedLatency(temporal, l),
  );
}

/** The parts measured on `temporal` (one server kind). */
export async function serverSections(
  temporal: BenchTemporal,
  plan: BenchPlan,
  bundles: BenchBundles,
  /** The compiled worker's `worker/main.js` (bench/worker-process.ts `buildCompiledWorker`). */
  compiledMain: string,
  progress: Progress,
): Promise<ServerResults> {
  const on = `(${temporal.kind} server)`;
  const { throughput: t, liveChat: c, recovery: r } = plan;
  const bundle = bundles.off;
  return {
    kind: temporal.kind,
    server: SERVER_KINDS[temporal.kind],
    latency: await latencySection(temporal, plan, progress),
    tracing: await tracingSection(temporal, plan, bundles, progress),
    throughput: await part(
      progress,
      `throughput ${on}: ${t.agents} agents, ${t.rates.join(', ')} msg/s`,
      () => measureThroughput(temporal, { ...t, progress }, { workflowBundle: bundle }),
    ),
    liveChat: await part(progress, `live chat ${on}: ${c.scale}, ${c.messages} messages`, () =>
      measureLiveChat(temporal, c),
    ),
    recovery: await part(progress, `recovery after SIGKILL ${on}: ${r.kills} kills, npm start's worker`, () =>
      measureRecovery(temporal, { kills: r.kills, workflowBundle: bundle }),
    ),
    recoveryCompiled: await part(
      progress,
      `recovery after SIGKILL ${on}: ${r.kills} kills, the compiled worker`,
      () => measureRecovery(temporal, { kills: r.kills, workflowBundle: bundle, compiledMain }),
    ),
    ...(await stockFleet(temporal, plan, bundle, progress)),
  };
}

/** On the stock server, the fleet at `stockAgentCounts` (the embedded server measures it once, in full). */
async function stockFleet(
  temporal: BenchTemporal,
  plan: BenchPlan,
  bundle: string,
  progress: Progress,
): Promise<Pick<ServerResults, 'fleet'>> {
  const { fleet: f } = plan;
  if (temporal.kind !== 'stock' || f.stockAgentCounts.length === 0) return {};
  return {
    fleet: await part(
      progress,
      `fleet (stock server): ${f.stockAgentCounts.join(', ')} agents on one worker`,
      () =>
        measureFleet(temporal, { ...f, agentCounts: f.stockAgentCounts, workflowBundle: bundle, progress }),
    ),
  };
}

/** The parts measured once, on `temporal` (the embedded server). */
export async function onceSections(
  temporal: BenchTemporal,
  plan: BenchPlan,
  bundle: string,
  progress: Progress,
): Promise<OnceResults> {
  const { sendBudget: b, fleet: f, soak: s } = plan;
  const out: OnceResults = {};
  out.cost = await part(progress, `cost from histories: ${plan.cost.n} of each scenario`, () =>
    measureCosts(temporal, plan.cost.n),
  );
  out.sendBudget = await part(
    progress,
    `send budget and priority lanes: ${b.sends} sends, ${b.limit} per ${b.windowMs / 1000} s, twice`,
    () => measureSendBudget(temporal, b),
  );
  out.fleet = await part(progress, `fleet: ${f.agentCounts.join(', ')} agents on one worker`, () =>
    measureFleet(temporal, { ...f, workflowBundle: bundle, progress }),
  );
  if (s.messages > 0)
    out.soak = await part(progress, `history soak: ${s.messages} echoes to one agent`, () =>
      measureSoak(temporal, { ...s, workflowBundle: bundle }, progress),
    );
  return out;
}

/** The plain loop's throughput ladder (no Temporal). */
export async function plainSection(
  plan: BenchPlan,
  progress: Progress,
): Promise<OnceResults['plainThroughput']> {
  return part(progress, `throughput, plain loop: ${plan.throughput.agents} agents`, () =>
    measurePlainThroughput({ ...plan.throughput, progress }),
  );
}
