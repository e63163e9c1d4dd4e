/**
 * The bench's plots (SVG, bench/svg.ts), written next to a run's results for REPORT.md:
 *  - latency-cdf.svg: human message → reply accepted, amsflow vs the plain loop (CDF, log x);
 *  - live-chat-polls.svg: polls and sends in the trailing window over time, against their limits;
 *  - send-budget.svg: sends accepted over time after a burst, against the optimum;
 *  - fleet-rss.svg, fleet-p99.svg: RSS and p99 added latency against the number of agents.
 * A section that is missing, failed (`{ error }`) or lacks the data a plot needs is skipped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { LatencyResult } from './latency';
import type { LiveChatResult } from './live-chat';
import type { SendBudgetResult } from './send-budget';
import { sendBudgetSeries } from './send-budget';
import { PALETTE, cdfChart, lineChart, type Point } from './svg';

/** One row of the fleet bench: agents on one worker. */
export interface FleetPoint {
  agents: number;
  rssMb: number;
  p99Ms: number;
  ratePerSecond?: number;
}

type Section<T> = T | { error: string } | undefined;

/** The parts of the bench results the plots read (bench/run.ts's results object). */
export interface PlotInput {
  /** `samples`: each message's latency in ms, per side (needed for the CDF). */
  latency?: Section<LatencyResult & { samples?: { amsflow: number[]; plain: number[] } }>;
  /**
   * `timeline`: real epoch ms of each poll (GET /updates) and send (POST /messages) the service
   * answered; `limits` per window, default the spec's 15 polls and 12 sends.
   */
  liveChat?: Section<
    LiveChatResult & {
      timeline?: { polls: number[]; sends: number[]; limits?: { updates: number; messages: number } };
    }
  >;
  sendBudget?: Section<SendBudgetResult>;
  fleet?: Section<FleetPoint[] | { rows: FleetPoint[] }>;
}

/** A written plot: its path relative to `relativeTo` (for a Markdown link) and its title. */
export interface PlotFile {
  path: string;
  title: string;
}

const ok = <T>(section: Section<T>): T | undefined =>
  section && !(typeof section === 'object' && 'error' in section) ? section : undefined;

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
  const runs = [...(result.baseline ? [result.baseline] : []), result.withStatuses];
  return lineChart({
    title: `Send budget: ${result.sends} sends requested at once`,
    subtitle:
      `limit ${result.limit} per ${result.windowMs / 1000} s; ` +
      `${runs.reduce((n, f) => n + f.status429.messages, 0)} × 429; sustained ÷ limit: ` +
      runs
        .map((f) => `${f.sustainedRatio} ${f.withStatuses ? 'with mark-read & typing' : 'alone'}`)
        .join(', '),
    xLabel: 'time since the sends were requested (s)',
    yLabel: 'sends accepted by the service',
    series: sendBudgetSeries(result),
  });
}

function fleetCharts(rows: FleetPoint[]): { name: string; title: string; svg: string }[] {
  const sorted = [...rows].sort((a, b) => a.agents - b.agents);
  const single = sorted.find((r) => r.agents === 1);
  const subtitle = 'one worker process and the dev server on this machine';
  const rssTitle = 'Worker RSS against agents';
  const p99Title = 'p99 added latency against agents';
  return [
    {
      name: 'fleet-rss.svg',
      title: rssTitle,
      svg: lineChart({
        title: rssTitle,
        subtitle,
        xLabel: 'agents on one worker (log scale)',
        yLabel: 'RSS (MB)',
        logX: true,
        series: [{ name: 'RSS', points: sorted.map((r) => ({ x: r.agents, y: r.rssMb })), markers: true }],
        refLines: [{ y: 1024, label: 'target: 1,000 agents under 1 GB' }],
      }),
    },
    {
      name: 'fleet-p99.svg',
      title: p99Title,
      svg: lineChart({
        title: p99Title,
        subtitle,
        xLabel: 'agents on one worker (log scale)',
        yLabel: 'p99 human message → reply (ms)',
        logX: true,
        series: [{ name: 'p99', points: sorted.map((r) => ({ x: r.agents, y: r.p99Ms })), markers: true }],
        refLines: [
          { y: 1000, label: 'p99 1 s' },
          ...(single ? [{ y: 2 * single.p99Ms, label: '2 × single-agent p99', color: '#555555' }] : []),
        ],
      }),
    },
  ];
}

/**
 * Writes the plots of `results` as SVG files into `dir` (created if needed) and returns them,
 * with paths relative to `relativeTo` (default bench/, where REPORT.md is). Sections that are
 * missing or failed are skipped.
 */
export function writePlots(results: PlotInput, dir: string, relativeTo: string = __dirname): PlotFile[] {
  const plots: { name: string; title: string; svg: string }[] = [];
  const latency = ok(results.latency);
  if (latency?.samples) {
    const title = 'Human message → reply accepted by the service';
    plots.push({
      name: 'latency-cdf.svg',
      title,
      svg: cdfChart({
        title,
        subtitle:
          `${latency.messages} messages each, one every ${latency.spacingMs} ms, limits raised; ` +
          `amsflow − plain p50 ${latency.addedMs.p50} ms, p99 ${latency.addedMs.p99} ms`,
        xLabel: 'latency (ms, log scale)',
        logX: true,
        samples: [
          { name: 'amsflow', values: latency.samples.amsflow },
          { name: 'plain loop', values: latency.samples.plain },
        ],
      }),
    });
  }
  const live = ok(results.liveChat);
  if (live?.timeline) {
    const { polls, sends } = live.timeline;
    const limits = live.timeline.limits ?? { updates: 15, messages: 12 };
    const origin = Math.min(...polls, ...sends);
    const w = live.windowMs;
    const title = 'Live chat: polls and sends per window against their limits';
    plots.push({
      name: 'live-chat-polls.svg',
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
    });
  }
  const budget = ok(results.sendBudget);
  if (budget)
    plots.push({
      name: 'send-budget.svg',
      title: 'Send budget against the optimum',
      svg: sendBudgetSvg(budget),
    });
  const fleet = ok(results.fleet);
  const rows = Array.isArray(fleet) ? fleet : fleet?.rows;
  if (rows?.length) plots.push(...fleetCharts(rows));

  if (plots.length) mkdirSync(dir, { recursive: true });
  return plots.map((p) => {
    const file = join(dir, p.name);
    writeFileSync(file, p.svg);
    return { path: relative(relativeTo, file), title: p.title };
  });
}
