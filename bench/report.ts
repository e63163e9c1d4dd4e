/**
 * The generated part of bench/REPORT.md: the run (command, time, machine), every target of the
 * performance issue with its measured figure, and the plots. It replaces what lies between the
 * two markers and leaves the rest of the report (the written analysis) alone.
 */
import { cpus } from 'node:os';
import { relative, dirname } from 'node:path';
import { writeMarkdownSection } from '../scripts/markdown-section';
import type { FleetResult } from './fleet';
import type { LatencyResult } from './latency';
import type { LiveChatResult } from './live-chat';
import type { PlotFile } from './plots';
import type { RecoveryResult } from './recovery';
import type { SendBudgetResult } from './send-budget';
import type { SoakResult } from './soak';

export const FIGURES_START = '<!-- bench:figures:start (written by npm run bench) -->';
export const FIGURES_END = '<!-- bench:figures:end -->';

type Maybe<T> = T | { error: string } | undefined;

export interface ReportInput {
  at: string;
  node: string;
  mode: string;
  latency: Maybe<LatencyResult>;
  liveChat: Maybe<LiveChatResult>;
  liveChatFull?: Maybe<LiveChatResult>;
  sendBudget: Maybe<SendBudgetResult>;
  fleet: Maybe<FleetResult>;
  recovery: Maybe<RecoveryResult>;
  soak?: Maybe<SoakResult>;
}

const ok = <T>(v: Maybe<T>): T | undefined => (v && !(v as { error?: string }).error ? (v as T) : undefined);
const yes = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '**yes**' : '**no**');

/** One row per target: what, the figure, met or not. */
export function targetRows(r: ReportInput): [string, string, string][] {
  const rows: [string, string, string][] = [];
  const lat = ok(r.latency);
  rows.push([
    'added latency p50 ≤ 60 ms',
    lat ? `${lat.addedMs.p50} ms` : '–',
    yes(lat && lat.addedMs.p50 <= 60),
  ]);
  rows.push([
    'added latency p99 ≤ 250 ms',
    lat ? `${lat.addedMs.p99} ms` : '–',
    yes(lat && lat.addedMs.p99 <= 250),
  ]);
  const live = ok(r.liveChatFull);
  rows.push([
    'live chat (full scale) pick-up p50 ≤ 2 s, p95 ≤ 5 s',
    live ? `${live.pickup.p50Ms} / ${live.pickup.p95Ms} ms` : '–',
    yes(live && live.pickup.p50Ms <= 2000 && live.pickup.p95Ms <= 5000),
  ]);
  rows.push([
    'live chat 0 × 429',
    live ? String(live.status429.total) : '–',
    yes(live && live.status429.total === 0),
  ]);
  const sb = ok(r.sendBudget)?.baseline ?? ok(r.sendBudget)?.withStatuses;
  rows.push([
    'send budget: first 12 out within 1 s',
    sb ? `${sb.firstWindowOutMs} ms` : '–',
    yes(sb && sb.firstWindowOutMs <= 1000),
  ]);
  rows.push([
    'send budget: sustained ≥ 0.98 of the limit',
    sb ? String(sb.sustainedRatio) : '–',
    yes(sb && sb.sustainedRatio >= 0.98),
  ]);
  const s429 = sb ? Object.values(sb.status429).reduce((a, b) => a + b, 0) : undefined;
  rows.push([
    'send budget: 0 × 429',
    s429 === undefined ? '–' : String(s429),
    yes(s429 === undefined ? undefined : s429 === 0),
  ]);
  const delay = ok(r.sendBudget)?.statusDelayMs;
  rows.push([
    'mark-read and typing never delay a reply',
    delay ? `p50 ${delay.p50} ms, max ${delay.max} ms later with them` : '–',
    delay ? 'see the analysis' : 'not measured',
  ]);
  const fleet = ok(r.fleet);
  const best = fleet?.ladder?.bestPerSecond;
  rows.push([
    '≥ 10 messages/s with p99 ≤ 1 s',
    fleet?.ladder ? `${best ?? 'none'} msg/s` : '–',
    yes(fleet?.ladder ? (best ?? 0) >= 10 : undefined),
  ]);
  const big = fleet?.rows.find((x) => x.agents === 1000);
  const one = fleet?.rows.find((x) => x.agents === 1);
  rows.push([
    '1,000 agents under 1 GB RSS',
    big ? `${big.workerRssAfterMb} MB` : '–',
    yes(big && big.workerRssAfterMb < 1024),
  ]);
  rows.push([
    '1,000 agents: p99 ≤ 2 × single-agent p99',
    big && one ? `${big.lowRate.latency.p99Ms} vs ${one.lowRate.latency.p99Ms} ms` : '–',
    yes(big && one && big.lowRate.latency.p99Ms <= 2 * one.lowRate.latency.p99Ms),
  ]);
  const idle = fleet?.rows.map((x) => x.idle.eventsPerAgentMinute);
  rows.push([
    'idle agents cost no workflow tasks',
    idle ? `${Math.max(...idle)} history events per idle agent-minute at most` : '–',
    yes(idle && Math.max(...idle) < 1),
  ]);
  const cost = fleet?.messageCost;
  rows.push([
    'cost of one message (published)',
    cost
      ? `${cost.total.workflowTasks} workflow tasks, ${cost.total.activityTasks} activity tasks, ${cost.total.events} events`
      : '–',
    cost ? 'published' : 'not measured',
  ]);
  const soak = ok(r.soak);
  rows.push([
    'history bounded in a soak',
    soak
      ? `${soak.messages} messages: longest run ${soak.longestHistory} events over ${soak.runs} runs, carried ${soak.carriedBytes} B`
      : '–',
    soak ? yes(soak.longestHistory < 10_000) : 'not measured',
  ]);
  const rec = ok(r.recovery);
  const kill = rec?.runs.map((x) => x.killToReplyMs).sort((a, b) => a - b);
  rows.push([
    'recovery: SIGKILL → next reply',
    kill?.length ? `median ${kill[Math.floor(kill.length / 2)]} ms (${kill.length} kills)` : '–',
    kill?.length ? 'published' : 'not measured',
  ]);
  return rows;
}

/** The generated section's Markdown. */
export function figuresMarkdown(
  r: ReportInput,
  plots: PlotFile[],
  run: { command: string; resultsFile: string },
  reportDir: string,
): string {
  const cpu = cpus();
  const lines = [
    FIGURES_START,
    '',
    `- **Command:** \`${run.command}\` (${r.mode} run), finished ${r.at}`,
    `- **Machine:** ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${r.node}; results in \`${relative(reportDir, run.resultsFile)}\``,
    '',
    '| target | measured | met? |',
    '| --- | --- | --- |',
    ...targetRows(r).map(([t, m, k]) => `| ${t} | ${m} | ${k} |`),
    '',
    ...plots.map((p) => `![${p.title}](${p.path})`),
    '',
    FIGURES_END,
  ];
  return lines.join('\n');
}

/** Writes the generated section into the report (between the markers, or at its end). */
export async function writeReportFigures(
  reportPath: string,
  r: ReportInput,
  plots: PlotFile[],
  run: { command: string; resultsFile: string },
): Promise<void> {
  const body = figuresMarkdown(r, plots, run, dirname(reportPath))
    .replace(FIGURES_START, '')
    .replace(FIGURES_END, '');
  await writeMarkdownSection(
    reportPath,
    { start: FIGURES_START, end: FIGURES_END },
    '## Figures of the last run',
    body,
  );
}
