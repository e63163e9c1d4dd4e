/**
 * The bench's plots (SVG, bench/svg.ts), written next to a run's results for REPORT.md:
 *  - latency-cdf.svg: human message → reply accepted, amsflow vs the plain loop, per server (CDF);
 *  - throughput.svg: p99 against the message rate, per server and for the plain loop;
 *  - live-chat-polls-<server>.svg: polls and sends in the trailing window over time, against their limits;
 *  - send-budget.svg: sends accepted over time after a burst, against the optimum;
 *  - fleet-rss.svg, fleet-p99.svg: peak RSS and p99 against the number of agents.
 * A part that is missing, failed (`{ error }`) or lacks the data a plot needs is skipped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FleetRow } from './fleet';
import type { ServerKind } from './latency';
import type { LiveChatResult } from './live-chat';
import { ok, type BenchResults } from './run-results';
import type { SendBudgetResult } from './send-budget';
import { sendBudgetSeries } from './send-budget';
import { PALETTE, cdfChart, lineChart, type Point, type Series } from './svg';

/** The parts of the results the plots read. */
export type PlotInput = Pick<BenchResults, 'servers' | 'sendBudget' | 'fleet' | 'plainThroughput'>;

/** A written plot: its path relative to `relativeTo` (for a Markdown link) and its title. */
export interface PlotFile {
  path: string;
  title: string;
}

type Plot = { name: string; title: string; svg: string };
const KINDS: ServerKind[] = ['stock', 'embedded'];

/**
 * The number of `times` (epoch ms) in the trailing window at every moment it changes, as step
 * points with x in seconds since `origin`.
 */
export function rollingCount(times: number[], windowMs: number, origin: number): Point[] {
  const changes = [...times.map((t) => [t, 1]), ...times.map((t) => [t + windowMs, -1])].sort(
    (a, b) => a[0] - b[0] || a[1] - b[1],
  );
  const points: Point[] = [{ x: 0, y: 0 }];
  let count = 0;
  for (let i = 0; i < changes.length; i++) {
    count += changes[i][1];
    if (i + 1 < changes.length && changes[i + 1][0] === changes[i][0]) continue;
    points.push({ x: (changes[i][0] - origin) / 1000, y: count });
  }
  return points;
}

/** The send-budget chart: sends accepted over time for the optimum and each burst. */
export function sendBudgetSvg(result: SendBudgetResult): string {
  return lineChart({
    title: `Send budget: ${result.sends} sends requested in two waves`,
    subtitle:
      `limit ${result.limit} per ${result.windowMs / 1000} s; sustained ÷ limit: ` +
      `${result.baseline.sustainedRatio} alone, ${result.withStatuses.sustainedRatio} with mark-reads, typing and reminders`,
    xLabel: 'time since the first wave was requested (s)',
    yLabel: 'replies accepted by the service',
    series: sendBudgetSeries(result),
  });
}

function latencyPlot(r: PlotInput): Plot[] {
  const samples = KINDS.flatMap((k) => {
    const lat = ok(r.servers[k]?.latency);
    return lat
      ? [
          { name: `amsflow, ${k}`, values: lat.samples.amsflow },
          { name: `plain loop, ${k}`, values: lat.samples.plain },
        ]
      : [];
  });
  if (!samples.length) return [];
  const title = 'Human message → reply accepted by the service';
  return [
    {
      name: 'latency-cdf.svg',
      title,
      svg: cdfChart({
        title,
        subtitle: 'one echo at a time, limits raised',
        xLabel: 'latency (ms, log scale)',
        logX: true,
        samples,
      }),
    },
  ];
}

function throughputPlot(r: PlotInput): Plot[] {
  const series: Series[] = [];
  for (const k of KINDS) {
    const t = ok(r.servers[k]?.throughput);
    if (t)
      series.push({
        name: `amsflow, ${k}`,
        points: t.steps.map((s) => ({ x: s.perSecond, y: s.p99Ms })),
        markers: true,
      });
  }
  const plain = ok(r.plainThroughput);
  if (plain)
    series.push({
      name: 'plain loop',
      points: plain.steps.map((s) => ({ x: s.perSecond, y: s.p99Ms })),
      markers: true,
      dashed: true,
    });
  if (!series.length) return [];
  const title = 'p99 against the message rate, one worker';
  return [
    {
      name: 'throughput.svg',
      title,
      svg: lineChart({
        title,
        subtitle: 'echo traffic spread over the agents; the ladder stops after the first rate not held',
        xLabel: 'messages per second',
        yLabel: 'p99 human message → reply (ms)',
        series,
        refLines: [{ y: 1000, label: 'p99 1 s' }],
      }),
    },
  ];
}

function liveChatPlot(kind: ServerKind, live: LiveChatResult): Plot {
  const { polls, sends, limits } = live.timeline;
  const origin = Math.min(...polls, ...sends);
  const w = live.windowMs;
  const title = `Live chat (${kind} server): polls and sends per window against their limits`;
  return {
    name: `live-chat-polls-${kind}.svg`,
    title,
    svg: lineChart({
      title,
      subtitle: `${live.scale}; ${live.messages} messages, ${live.status429.total} × 429`,
      xLabel: 'time (s)',
      yLabel: `requests in the last ${w / 1000} s`,
      series: [
        {
          name: 'polls (GET /updates)',
          points: rollingCount(polls, w, origin),
          step: true,
          color: PALETTE[0],
        },
        {
          name: 'sends (POST /messages)',
          points: rollingCount(sends, w, origin),
          step: true,
          color: PALETTE[1],
        },
      ],
      refLines: [
        { y: limits.updates, label: `poll limit ${limits.updates}/window`, color: PALETTE[0] },
        { y: limits.messages, label: `send limit ${limits.messages}/window`, color: PALETTE[1] },
      ],
    }),
  };
}

function fleetPlots(rows: FleetRow[]): Plot[] {
  const sorted = [...rows].sort((a, b) => a.agents - b.agents);
  const single = sorted.find((r) => r.agents === 1);
  const subtitle = 'one worker process and the embedded dev server on this machine';
  const chart = (
    name: string,
    title: string,
    yLabel: string,
    points: Point[],
    refLines: { y: number; label: string; color?: string }[],
  ) => ({
    name,
    title,
    svg: lineChart({
      title,
      subtitle,
      xLabel: 'agents on one worker (log scale)',
      yLabel,
      logX: true,
      series: [{ name: yLabel, points, markers: true }],
      refLines,
    }),
  });
  return [
    chart(
      'fleet-rss.svg',
      'Worker peak RSS against agents',
      'peak RSS (MB)',
      sorted.map((r) => ({ x: r.agents, y: r.workerRssPeakMb })),
      [{ y: 1024, label: 'target: 10,000 agents under 1 GB' }],
    ),
    chart(
      'fleet-p99.svg',
      'p99 at 1 msg/s against agents',
      'p99 human message → reply (ms)',
      sorted.map((r) => ({ x: r.agents, y: r.lowRate.latency.p99Ms })),
      [
        ...(single
          ? [{ y: 2 * single.lowRate.latency.p99Ms, label: '2 × single-agent p99', color: '#555555' }]
          : []),
      ],
    ),
  ];
}

/**
 * Writes the plots of `results` as SVG files into `dir` (created if needed) and returns them,
 * with paths relative to `relativeTo` (default bench/, where REPORT.md is).
 */
export function writePlots(results: PlotInput, dir: string, relativeTo: string = __dirname): PlotFile[] {
  const plots: Plot[] = [...latencyPlot(results), ...throughputPlot(results)];
  for (const k of KINDS) {
    const live = ok(results.servers[k]?.liveChat);
    if (live) plots.push(liveChatPlot(k, live));
  }
  const budget = ok(results.sendBudget);
  if (budget)
    plots.push({
      name: 'send-budget.svg',
      title: 'Send budget against the optimum',
      svg: sendBudgetSvg(budget),
    });
  const fleet = ok(results.fleet);
  if (fleet?.rows.length) plots.push(...fleetPlots(fleet.rows));
  if (plots.length) mkdirSync(dir, { recursive: true });
  return plots.map((p) => {
    const file = join(dir, p.name);
    writeFileSync(file, p.svg);
    return { path: relative(relativeTo, file), title: p.title };
  });
}
