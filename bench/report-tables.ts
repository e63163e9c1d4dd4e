/**
 * The Markdown tables of the report's generated section (pure): the targets, the cost table, the
 * latency per hop, the throughput ladders and the fleet. A table whose part did not run is left
 * out.
 */
import { HOPS } from './breakdown';
import type { ServerKind } from './latency';
import { ok, type BenchResults } from './run-results';
import { targetRows, type TargetInput } from './targets';
import type { ThroughputResult } from './throughput';

const KINDS: ServerKind[] = ['stock', 'embedded'];

/** A Markdown table (Prettier aligns it when the report is written). */
export function table(head: string[], rows: (string | number)[][]): string[] {
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)];
}

const metText = (m: string) => (m === 'yes' || m === 'no' ? `**${m}**` : m);

export function targetsTable(r: TargetInput): string[] {
  return table(
    ['target', 'server', 'amsflow', 'plain loop', 'met?'],
    targetRows(r).map((t) => [t.target, t.server, t.amsflow, t.plain, metText(t.met)]),
  );
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

export function fleetTable(r: Pick<BenchResults, 'fleet'>): string[] {
  const fleet = ok(r.fleet);
  if (!fleet?.rows.length && !fleet?.failed?.length) return [];
  const failed = (fleet.failed ?? []).map((f) => `- ${f.agents} agents: not measured (${f.error})`);
  const { heapMb, maxCachedWorkflows } = fleet.worker;
  return [
    `Agents on one worker process (heap limit: ${heapMb ? `--max-old-space-size=${heapMb}` : 'Node’s default'}; ` +
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
        x.idle.workerCores,
        `${x.lowRate.latency.p50Ms} ms`,
        `${x.lowRate.latency.p99Ms} ms`,
      ]),
    ),
    ...(failed.length ? ['', ...failed] : []),
  ];
}
