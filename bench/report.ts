/**
 * The generated part of bench/REPORT.md: the run (command, time, machine, which server is
 * which), every target of the cost-and-scale issue with its measured figure beside the plain
 * loop's (bench/targets.ts), the cost table, the latency per hop, the throughput ladders, the
 * fleet, and the plots. It replaces what lies between the two markers and leaves the rest of the
 * report (the written analysis) alone.
 */
import { relative, dirname } from 'node:path';
import { writeMarkdownSection } from '../scripts/markdown-section';
import type { PlotFile } from './plots';
import {
  costTable,
  fleetTable,
  hopsTable,
  targetsTable,
  throughputTable,
  tracingTable,
  tracingTargetsTable,
} from './report-tables';
import type { BenchResults, OnlyResults } from './run-results';

export const FIGURES_START = '<!-- bench:figures:start (written by npm run bench) -->';
export const FIGURES_END = '<!-- bench:figures:end -->';
/** Tracing's cost has a section of its own: `--only tracing` rewrites it and leaves the figures alone. */
export const TRACING_START =
  '<!-- bench:tracing:start (written by npm run bench and npm run bench -- --only tracing) -->';
export const TRACING_END = '<!-- bench:tracing:end -->';

export type ReportInput = Omit<BenchResults, 'client' | 'pacing' | 'memoryMb' | 'plan'>;

/** The generated section's Markdown (without the markers). Pure. */
export function figuresMarkdown(
  r: ReportInput,
  plots: PlotFile[],
  resultsFile: string,
  reportDir: string,
): string {
  const servers = Object.values(r.servers).map((s) => `  - ${s.server}`);
  const blocks = [
    costTable(r),
    hopsTable(r),
    throughputTable(r),
    fleetTable(r),
    fleetTable({ fleet: r.servers.stock?.fleet }, 'stock'),
  ].filter((b) => b.length);
  return [
    `- **Command:** \`${r.command}\` (${r.mode} run), finished ${r.at}`,
    `- **Machine:** ${r.machine.cpus} × ${r.machine.model}, ${r.machine.memoryGb} GiB, Node ${r.node}; ` +
      `results in \`${relative(reportDir, resultsFile)}\``,
    '- **Servers** (Temporal dev servers started by the bench, temp dir, headless):',
    ...servers,
    '',
    ...targetsTable(r),
    '',
    ...blocks.flatMap((b) => [...b, '']),
    ...plots.map((p) => `![${p.title}](${p.path})`),
  ].join('\n');
}

/** Writes the generated section into the report (between the markers, or at its end). */
export async function writeReportFigures(
  reportPath: string,
  r: ReportInput,
  plots: PlotFile[],
  resultsFile: string,
): Promise<void> {
  await writeMarkdownSection(
    reportPath,
    { start: FIGURES_START, end: FIGURES_END },
    '## Figures of the last run',
    figuresMarkdown(r, plots, resultsFile, dirname(reportPath)),
  );
}

/** What the tracing section is made of: a full run's results or an `--only tracing` run's. */
export type TracingReportInput = Pick<
  OnlyResults,
  'at' | 'node' | 'mode' | 'command' | 'machine' | 'servers'
>;

/** Tracing's section (without the markers): the run, its targets (issue 38), off and on per server. Pure. */
export function tracingMarkdown(r: TracingReportInput, resultsFile: string, reportDir: string): string {
  const measured = Object.values(r.servers).filter((s) => s.tracing !== undefined);
  const failed = measured.flatMap((s) =>
    s.tracing && 'error' in s.tracing ? [`- ${s.kind}: not measured (${s.tracing.error})`] : [],
  );
  return [
    `- **Command:** \`${r.command}\` (${r.mode} run), finished ${r.at}`,
    `- **Machine:** ${r.machine.cpus} × ${r.machine.model}, ${r.machine.memoryGb} GiB, Node ${r.node}; ` +
      `results in \`${relative(reportDir, resultsFile)}\``,
    '- **Servers** (Temporal dev servers started by the bench, temp dir, headless):',
    ...measured.map((s) => `  - ${s.server}`),
    '- **How:** the latency section’s echo beside the plain loop, with amsflow in a worker process ' +
      '(ts-node, as `npm start` runs it, so that its CPU is its own): tracing off as every other part runs it ' +
      '(no `OTEL_*` variable), on with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP/HTTP receiver the ' +
      'bench starts (the SDK’s default batching); runs alternate off, on, on, off, each with a fresh worker ' +
      'and agents. The latency section’s own figure (amsflow in process, tracing off) from the same run is ' +
      'the first row of each server.',
    '',
    ...tracingTargetsTable(r),
    '',
    ...tracingTable(r),
    ...(failed.length ? ['', ...failed] : []),
  ].join('\n');
}

/** Writes tracing's section into the report (between its markers, or at its end). */
export async function writeTracingReport(
  reportPath: string,
  r: TracingReportInput,
  resultsFile: string,
): Promise<void> {
  await writeMarkdownSection(
    reportPath,
    { start: TRACING_START, end: TRACING_END },
    '## What tracing costs',
    tracingMarkdown(r, resultsFile, dirname(reportPath)),
  );
}
