/**
 * The targets of the cost-and-scale issue (21), each set against a run's results (pure): what
 * was measured, on which server, amsflow's figure beside the plain loop's where one exists, and
 * whether it was met. A target whose part did not run, failed, or ran scaled down (`--quick`)
 * where the target is stated at the spec's scale is "not measured", never "yes".
 */
import type { CostRow } from './cost';
import type { FleetResult } from './fleet';
import type { LatencyResult, ServerKind } from './latency';
import { BENCH_LIVE_CHAT, pollBudgetBound } from './live-chat-optimum';
import type { RecoveryResult } from './recovery';
import { ok, type BenchResults, type Maybe } from './run-results';
import type { RateStep, ThroughputResult } from './throughput';
import type { TracingResult } from './tracing-cost';

export type Met = 'yes' | 'no' | 'not measured' | 'published';

export interface TargetRow {
  target: string;
  /** Which server the figure is from (`–` where none is involved). */
  server: ServerKind | 'either' | '–';
  amsflow: string;
  plain: string;
  met: Met;
}

export type TargetInput = Pick<
  BenchResults,
  'mode' | 'servers' | 'cost' | 'sendBudget' | 'fleet' | 'soak' | 'plainThroughput'
>;

const NONE = '–';
/** The best pick-up p95 the poll budget allows on the bench's live chat (network and handler times 0). */
const CHAT_OPTIMUM_P95_MS = pollBudgetBound(BENCH_LIVE_CHAT).groupedP95Ms;
const met = (ok: boolean | undefined): Met => (ok === undefined ? 'not measured' : ok ? 'yes' : 'no');
const ms = (v: number) => `${Math.round(v)} ms`;

function costRows(cost: CostRow[] | undefined): TargetRow[] {
  const echo = cost?.find((r) => r.scenario === 'echo')?.perUnit;
  const row = (target: string, figure: string, m: Met): TargetRow => ({
    target,
    server: 'either',
    amsflow: figure,
    plain: NONE,
    met: m,
  });
  return [
    row(
      'cost of an echo: ≤ 6 workflow tasks, ≤ 30 history events, ≤ 5 billable actions',
      echo ? `${echo.workflowTasks} tasks, ${echo.events} events, ${echo.actions} actions` : NONE,
      met(echo && echo.workflowTasks <= 6 && echo.events <= 30 && echo.actions <= 5),
    ),
    row(
      'cost of a signup step, an approval, a reminder (published)',
      cost ? 'the cost table below' : NONE,
      cost ? 'published' : 'not measured',
    ),
  ];
}

function latencyRows(r: TargetInput): TargetRow[] {
  const goal: Record<ServerKind, number> = { stock: 40, embedded: 25 };
  return (['stock', 'embedded'] as const).map((kind) => {
    const lat = ok(r.servers[kind]?.latency);
    return {
      target: `added latency p50 ≤ ${goal[kind]} ms (amsflow − plain loop)`,
      server: kind,
      amsflow: lat
        ? `+${lat.addedMs.p50} ms (p50 ${ms(lat.amsflow.p50Ms)}, p99 ${ms(lat.amsflow.p99Ms)})`
        : NONE,
      plain: lat ? `p50 ${ms(lat.plain.p50Ms)}, p99 ${ms(lat.plain.p99Ms)}` : NONE,
      met: met(lat && lat.addedMs.p50 <= goal[kind]),
    };
  });
}

const stepText = (s: RateStep | undefined) =>
  s ? `p99 ${ms(s.p99Ms)}, ${s.answered}/${s.written} answered` : 'not reached';
const stepAt = (t: ThroughputResult | undefined, rate: number) => t?.steps.find((s) => s.perSecond === rate);

/** A ladder over the target's 300 agents (a smaller one says nothing of the target). */
const full = (t: ThroughputResult | undefined): t is ThroughputResult => !!t && t.agents >= 300;

function throughputRows(r: TargetInput): TargetRow[] {
  const plain = ok(r.plainThroughput);
  const stock = ok(r.servers.stock?.throughput);
  const embedded = ok(r.servers.embedded?.throughput);
  const at10 = stepAt(stock, 10);
  return [
    {
      target: '300 agents at 10 msg/s, p99 ≤ 1 s',
      server: 'stock',
      amsflow: stock ? stepText(at10) : NONE,
      plain: plain ? stepText(stepAt(plain, 10)) : NONE,
      met: met(full(stock) ? !!at10 && at10.answered === at10.written && at10.p99Ms <= 1000 : undefined),
    },
    {
      target: '300 agents: ≥ 30 msg/s with p99 ≤ 1 s',
      server: 'embedded',
      amsflow: embedded ? `${embedded.bestPerSecond ?? 'no rate'} msg/s held` : NONE,
      plain: plain ? `${plain.bestPerSecond ?? 'no rate'} msg/s held` : NONE,
      met: met(full(embedded) ? (embedded.bestPerSecond ?? 0) >= 30 : undefined),
    },
  ];
}

function fleetRows(r: TargetInput): TargetRow[] {
  const fleet = ok(r.fleet);
  const big = fleet?.rows.find((x) => x.agents === 10_000);
  // A fleet of 10,000 that could not be measured (it did not start, or did not all poll in 10 minutes) is a miss.
  const failed = fleet?.failed?.find((x) => x.agents === 10_000);
  const one = fleet?.rows.find((x) => x.agents === 1);
  const idle = fleet?.rows.map((x) => x.idle.eventsPerAgentMinute);
  const row = (target: string, figure: string | undefined, ok: boolean | undefined): TargetRow => ({
    target,
    server: 'embedded',
    amsflow: failed ? `failed: ${failed.error}` : (figure ?? NONE),
    plain: NONE,
    met: failed ? 'no' : met(ok),
  });
  return [
    row(
      '10,000 agents on one worker under 1 GB RSS (peak)',
      big && `${big.workerRssPeakMb} MB`,
      big && big.workerRssPeakMb < 1024,
    ),
    row(
      '10,000 agents all polling within 60 s of start',
      big && ms(big.pollingMs),
      big && big.pollingMs <= 60_000,
    ),
    row(
      '10,000 agents: p99 at 1 msg/s ≤ 2 × a single agent’s',
      big && one && `${ms(big.lowRate.latency.p99Ms)} vs ${ms(one.lowRate.latency.p99Ms)}`,
      big && one && big.lowRate.latency.p99Ms <= 2 * one.lowRate.latency.p99Ms,
    ),
    {
      target: 'idle agents cost nothing (history events per idle agent-minute)',
      server: 'embedded',
      amsflow: idle?.length ? `${Math.max(...idle)} at most` : NONE,
      plain: NONE,
      met: met(idle?.length ? Math.max(...idle) < 1 : undefined),
    },
    idleCostRow(fleet, 'embedded'),
    idleCostRow(ok(r.servers.stock?.fleet), 'stock'),
  ];
}

/** The idle cost the server counts itself, at the largest fleet measured with its counters. */
function idleCostRow(fleet: FleetResult | undefined, server: ServerKind): TargetRow {
  const counted = fleet?.rows.filter((x) => x.idle.server).at(-1);
  const cost = counted?.idle.server;
  return {
    target: 'an idle agent: ≤ 1 server write and ≤ 1 Cloud action a minute',
    server,
    amsflow: cost
      ? `${cost.writesPerAgentMinute} writes, ${cost.actionsPerAgentMinute} actions (${counted.agents} agents; ` +
        `$${cost.cloudUsdPerAgentMonth} an agent-month on Cloud)`
      : NONE,
    plain: NONE,
    met: met(cost && cost.writesPerAgentMinute <= 1 && cost.actionsPerAgentMinute <= 1),
  };
}

function priorityRows(r: TargetInput): TargetRow[] {
  const b = ok(r.sendBudget);
  const full = b && b.windowMs >= 60_000;
  const busy = b?.withStatuses;
  const s429 =
    b &&
    [b.baseline, b.withStatuses].reduce(
      (n, f) => n + Object.values(f.status429).reduce((x, y) => x + y, 0),
      0,
    );
  const row = (target: string, figure: string, m: Met): TargetRow => ({
    target,
    server: 'embedded',
    amsflow: figure,
    plain: NONE,
    met: m,
  });
  return [
    row(
      'with mark-reads, typing and reminders due, replies no later (per-send p50 difference ≤ 50 ms)',
      b ? `p50 ${b.statusDelayMs.p50} ms, max ${b.statusDelayMs.max} ms` : NONE,
      met(b && b.statusDelayMs.p50 <= 50),
    ),
    row(
      'replies before reminders',
      busy?.reminders ? `${busy.reminders.repliesAfterFirst} replies left after the first reminder` : NONE,
      met(busy?.reminders && busy.reminders.repliesAfterFirst === 0),
    ),
    row('reminders before typing', 'typing has its own window and loop', 'not measured'),
    row(
      'sends sustained ≥ 0.99 of the limit at the spec’s window',
      b ? `${b.baseline.sustainedRatio} (window ${b.windowMs / 1000} s)` : NONE,
      met(full ? b.baseline.sustainedRatio >= 0.99 : undefined),
    ),
    row(
      'send budget: 0 × 429',
      s429 === undefined ? NONE : String(s429),
      met(s429 === undefined ? undefined : s429 === 0),
    ),
  ];
}

function chatRows(r: TargetInput, kind: ServerKind): TargetRow[] {
  const live = ok(r.servers[kind]?.liveChat);
  const full = live && live.windowMs >= 60_000;
  return [
    {
      // The optimum is below 2 s, so 2 s is the target (issue 41): bench/live-chat-optimum.ts.
      target: `live chat, human every 6 s at the spec’s limits: pick-up p95 ≤ 2 s (the poll budget’s optimum: ${ms(CHAT_OPTIMUM_P95_MS)} + network and handler), 0 × 429`,
      server: kind,
      amsflow: live
        ? `p50 ${ms(live.pickup.p50Ms)}, p95 ${ms(live.pickup.p95Ms)}, ${live.status429.total} × 429${full ? '' : ' (scaled)'}`
        : NONE,
      plain: NONE,
      met: met(full ? live.pickup.p95Ms <= 2000 && live.status429.total === 0 : undefined),
    },
    recoveryRow(kind, r.servers[kind]?.recoveryCompiled, 'compiled worker, as the image runs it'),
    recoveryRow(kind, r.servers[kind]?.recovery, 'worker under ts-node, as npm start runs it'),
  ];
}

/** Recovery after SIGKILL with one way of starting the worker (absent: not measured that way). */
function recoveryRow(kind: ServerKind, result: Maybe<RecoveryResult>, how: string): TargetRow {
  const rec = ok(result)
    ?.runs.map((x) => x.killToReplyMs)
    .sort((a, b) => a - b);
  const p50 = rec?.length ? rec[Math.floor((rec.length - 1) / 2)] : undefined;
  return {
    target: `recovery after SIGKILL (${how}): p50 ≤ 2 s, max ≤ 5 s`,
    server: kind,
    amsflow: rec?.length ? `p50 ${ms(p50!)}, max ${ms(rec.at(-1)!)} (${rec.length} kills)` : NONE,
    plain: NONE,
    met: met(rec?.length ? p50! <= 2000 && rec.at(-1)! <= 5000 : undefined),
  };
}

function soakRow(r: TargetInput): TargetRow {
  const soak = ok(r.soak);
  return {
    target: 'history bounded in a soak (longest run < 10,000 events)',
    server: 'embedded',
    amsflow: soak
      ? `${soak.messages} echoes (${soak.answered} answered in time): longest run ${soak.longestHistory} events, largest ${(soak.largestHistoryBytes / 1e6).toFixed(1)} MB, ${soak.runs} runs`
      : NONE,
    plain: NONE,
    met: met(soak && soak.longestHistory < 10_000),
  };
}

/**
 * What tracing on may add to an echo's added latency p50 (on − off, each beside the plain loop):
 * 5 ms, or 10 % of the figure with tracing off where that is more (the stock server's slower
 * path). Tracing's work on an echo's path is span bookkeeping in the worker (interceptors, the
 * workflow's spans handed out through a sink); the export is batched off the path. 5 ms is a
 * fifth of the embedded server's latency target (25 ms) and about what this bench can resolve
 * between two runs of the same configuration on 2 shared cores: a tighter bound would be judged
 * by the noise.
 */
export const TRACING_BUDGET = { ms: 5, share: 0.1 };

/** Where tracing's results are: each server kind's `tracing` part. */
export interface TracingInput {
  servers: Partial<Record<ServerKind, { tracing?: Maybe<TracingResult>; latency?: Maybe<LatencyResult> }>>;
}

/** Tracing's targets (issue 38, point 3) on each server: on adds at most the budget; off loads nothing. */
export function tracingTargetRows(r: TracingInput): TargetRow[] {
  const { ms: budgetMs, share } = TRACING_BUDGET;
  return (['stock', 'embedded'] as const).flatMap((kind): TargetRow[] => {
    const t = ok(r.servers[kind]?.tracing);
    const measured = t && t.off.echoes > 0 && t.on.echoes > 0 ? t : undefined;
    const allowed = measured && Math.max(budgetMs, share * measured.off.addedMs.p50);
    /** `+8.5 ms`, or with a standard error `+8.5 ± 11.4 ms`. */
    const sign = (v: number, se = NaN) =>
      `${v >= 0 ? '+' : ''}${v}${Number.isFinite(se) ? ` ± ${se}` : ''} ms`;
    return [
      {
        target: `tracing on adds ≤ ${budgetMs} ms or ≤ ${share * 100} % to the added latency p50 (on − off)`,
        server: kind,
        amsflow: measured
          ? `${sign(measured.costMs.p50, measured.costSeMs.p50)} ` +
            `(off ${sign(measured.off.addedMs.p50)}, on ${sign(measured.on.addedMs.p50)}; ` +
            `allowed ${+allowed!.toFixed(1)} ms)`
          : NONE,
        plain: measured
          ? `p50 ${ms(measured.off.plainMs.p50)} (off runs), ${ms(measured.on.plainMs.p50)} (on runs)`
          : NONE,
        met: met(measured && measured.costMs.p50 <= allowed!),
      },
      {
        target: 'tracing off loads nothing of OpenTelemetry’s SDK and sends nothing',
        server: kind,
        amsflow:
          measured && measured.off.otelSdkModules !== null
            ? `${measured.off.otelSdkModules} SDK modules, ${measured.off.otlpRequests} exports (on: ${measured.on.otelSdkModules ?? '?'} modules)`
            : NONE,
        plain: NONE,
        met: met(
          measured && measured.off.otelSdkModules !== null
            ? measured.off.otelSdkModules === 0 && measured.off.otlpRequests === 0
            : undefined,
        ),
      },
    ];
  });
}

/** Every target of issue 21 against `r`, in the issue's order. */
export function targetRows(r: TargetInput): TargetRow[] {
  return [
    ...costRows(ok(r.cost)),
    ...latencyRows(r),
    ...throughputRows(r),
    ...fleetRows(r),
    ...priorityRows(r),
    ...chatRows(r, 'stock'),
    ...chatRows(r, 'embedded'),
    soakRow(r),
  ];
}
