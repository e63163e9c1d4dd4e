/**
 * The Markdown tables of the report's generated section (pure): the targets, the cost table, the
 * latency per hop, the throughput ladders and the fleet. A table whose part did not run is left
 * out.
 */
import { HOPS } from './breakdown';
import type { ServerKind } from './latency';
import { ok, type BenchResults } from './run-results';
import { targetRows, tracingTargetRows, type TargetInput, type TracingInput } from './targets';
import type { ThroughputResult } from './throughput';
import type { TracingSide } from './tracing-cost';

const KINDS: ServerKind[] = ['stock', 'embedded'];

/** A Markdown table (Prettier aligns it when the report is written). */
export function table(head: string[], rows: (string | number)[][]): string[] {
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)];
}

const metText = (m: string) => (m === 'yes' || m === 'no' ? `**${m}**` : m);

const TARGET_HEAD = ['target', 'server', 'amsflow', 'plain loop', 'met?'];

export function targetsTable(r: TargetInput): string[] {
  return table(
    TARGET_HEAD,
    targetRows(r).map((t) => [t.target, t.server, t.amsflow, t.plain, metText(t.met)]),
  );
}

/** Tracing's targets (issue 38), in the table's shape. */
export function tracingTargetsTable(r: TracingInput): string[] {
  return table(
    TARGET_HEAD,
    tracingTargetRows(r).map((t) => [t.target, t.server, t.amsflow, t.plain, metText(t.met)]),
  );
}

/** Tracing off and on per server, and on − off; a server whose part did not run is left out. */
export function tracingTable(r: TracingInput): string[] {
  const rows: (string | number)[][] = [];
  const spans: string[] = [];
  const signed = (v: number, se: number) =>
    Number.isFinite(v) ? `${v > 0 ? '+' : ''}${v}${Number.isFinite(se) ? ` ± ${se}` : ''}` : '–';
  const num = (v: number | null) => (v !== null && Number.isFinite(v) ? v : '–');
  for (const k of KINDS) {
    const t = ok(r.servers[k]?.tracing);
    if (!t) continue;
    // The latency section's figure (amsflow in process, tracing off): the bench's usual one.
    const lat = ok(r.servers[k]?.latency);
    if (lat)
      rows.push([
        k,
        'off, in process (latency section)',
        `1 × ${lat.messages} (${lat.samples.amsflow.length} answered)`,
        `${lat.amsflow.p50Ms} / ${lat.amsflow.p95Ms}`,
        `${lat.plain.p50Ms} / ${lat.plain.p95Ms}`,
        `${lat.addedMs.p50} / ${lat.addedMs.p95}`,
        `${lat.ratio.p50} / ${lat.ratio.p95}`,
        '',
        '–',
        '–',
        '–',
        '–',
      ]);
    const row = (name: string, s: TracingSide) => [
      k,
      name,
      `${s.runs} × ${t.messages} (${s.echoes} answered)`,
      `${s.amsflowMs.p50} / ${s.amsflowMs.p95}`,
      `${s.plainMs.p50} / ${s.plainMs.p95}`,
      `${s.addedMs.p50} / ${s.addedMs.p95}`,
      `${s.ratio.p50} / ${s.ratio.p95}`,
      s.runAddedP50Ms.join(', '),
      num(s.workerCpuMsPerEcho),
      num(s.spansPerEcho),
      num(s.otlpBytesPerEcho),
      num(s.otelSdkModules),
    ];
    rows.push(row('off', t.off), row('on', t.on), [
      k,
      'on − off',
      '',
      '',
      '',
      `${signed(t.costMs.p50, t.costSeMs.p50)} / ${signed(t.costMs.p95, t.costSeMs.p95)}`,
      '',
      '',
      signed(t.cpuMsPerEcho, t.cpuSeMsPerEcho),
      '',
      '',
      '',
    ]);
    const names = Object.entries(t.on.spansByName).map(([name, n]) => `\`${name}\` ${n}`);
    if (names.length) spans.push(`- ${k}, tracing on: ${names.join(', ')}`);
  }
  if (!rows.length) return [];
  return [
    'Tracing off and on: an echo beside the plain loop, the worker in its own process (ms, p50 / p95, ' +
      'each the mean of the runs’ own; CPU of the worker from the warm-up’s end to the last reply, ' +
      'idle polls included; spans and bytes as the OTLP receiver got them; on − off ± its standard error, ' +
      'from the spread of the runs):',
    '',
    ...table(
      [
        'server',
        'tracing',
        'runs × echoes',
        'amsflow',
        'plain loop',
        'added',
        'ratio',
        'added p50 per run',
        'worker CPU ms/echo',
        'spans/echo',
        'OTLP bytes/echo',
        'OTel SDK modules loaded',
      ],
      rows,
    ),
    ...(spans.length ? ['', 'Spans per echo, by name:', '', ...spans] : []),
  ];
}

export function costTable(r: Pick<BenchResults, 'cost'>): string[] {
  const cost = ok(r.cost);
  if (!cost) return [];
  return [
    'Cost per unit, all workflows together, counted from their histories (embedded server; the counts do not depend on it):',
    '',
    ...table(
      [
        'per',
        'measured',
        'events',
        'workflow tasks',
        'activity tasks',
        'timers',
        'signals',
        'child workflows',
        'actions',
      ],
      cost.map((c) => {
        const u = c.perUnit;
        return [
          c.scenario,
          c.units,
          u.events,
          u.workflowTasks,
          u.activityTasks,
          u.timers,
          u.signals,
          u.childWorkflows,
          u.actions,
        ];
      }),
    ),
  ];
}

export function hopsTable(r: Pick<BenchResults, 'servers'>): string[] {
  const kinds = KINDS.filter((k) => ok(r.servers[k]?.latency)?.breakdown);
  if (!kinds.length) return [];
  const cell = (k: ServerKind, hop: (typeof HOPS)[number]) => {
    const s = ok(r.servers[k]?.latency)!.breakdown!.steps[hop];
    return `${s.p50Ms} / ${s.p95Ms}`;
  };
  return [
    'Where an echo’s latency goes, per hop, from the agent workflow’s history (p50 / p95, ms):',
    '',
    ...table(
      ['hop', ...kinds],
      HOPS.map((hop) => [hop, ...kinds.map((k) => cell(k, hop))]),
    ),
  ];
}

/** CPU in cores; `–` where there is no such process (the plain loop has no worker or server). */
const cores = (v: number | null) => (v !== null && Number.isFinite(v) ? v : '–');

export function throughputTable(r: Pick<BenchResults, 'servers' | 'plainThroughput'>): string[] {
  const ladders: [string, ThroughputResult][] = [];
  for (const k of KINDS) {
    const t = ok(r.servers[k]?.throughput);
    if (t) ladders.push([`amsflow, ${k}`, t]);
  }
  const plain = ok(r.plainThroughput);
  if (plain) ladders.push(['plain loop', plain]);
  if (!ladders.length) return [];
  const rows = ladders.flatMap(([who, t]) =>
    t.steps.map((s) => [
      who,
      s.perSecond,
      `${s.answered}/${s.written}`,
      s.p50Ms,
      s.p99Ms,
      cores(s.workerCores),
      cores(s.serverCores),
      cores(s.simulatorCores),
    ]),
  );
  return [
    `Throughput, ${ladders[0][1].agents} agents, ${ladders[0][1].secondsPerStep} s a step (CPU in cores: where the next wall is):`,
    '',
    ...table(['who', 'msg/s', 'answered', 'p50 ms', 'p99 ms', 'worker', 'dev server', 'simulator'], rows),
  ];
}

/** The fleet's table: the embedded server's (`r.fleet`), or with `on` another server's. */
export function fleetTable(r: Pick<BenchResults, 'fleet'>, on = 'embedded'): string[] {
  const fleet = ok(r.fleet);
  if (!fleet?.rows.length && !fleet?.failed?.length) return [];
  const failed = (fleet.failed ?? []).map((f) => `- ${f.agents} agents: not measured (${f.error})`);
  const { heapMb, maxCachedWorkflows } = fleet.worker;
  return [
    `Agents on one worker process, ${on} server (heap limit: ${heapMb ? `--max-old-space-size=${heapMb}` : 'Node’s default'}; ` +
      `workflow cache: ${maxCachedWorkflows ?? 'follows the heap'}):`,
    '',
    ...table(
      [
        'agents',
        'running',
        'all polling',
        'RSS',
        'peak RSS',
        'idle events/agent-min',
        'idle writes/agent-min',
        'idle actions/agent-min',
        'actions/agent-hour',
        'Cloud $/agent-month',
        'idle worker cores',
        'p50 @1/s',
        'p99 @1/s',
      ],
      fleet.rows.map((x) => [
        x.agents,
        `${(x.workerStartMs / 1000).toFixed(1)} s`,
        `${(x.pollingMs / 1000).toFixed(1)} s`,
        `${x.workerRssMb} MB`,
        `${x.workerRssPeakMb} MB`,
        x.idle.eventsPerAgentMinute,
        x.idle.server?.writesPerAgentMinute ?? '–',
        x.idle.server?.actionsPerAgentMinute ?? '–',
        x.idle.server?.actionsPerAgentHour ?? '–',
        x.idle.server ? `$${x.idle.server.cloudUsdPerAgentMonth}` : '–',
        x.idle.workerCores,
        `${x.lowRate.latency.p50Ms} ms`,
        `${x.lowRate.latency.p99Ms} ms`,
      ]),
    ),
    ...(failed.length ? ['', ...failed] : []),
  ];
}
