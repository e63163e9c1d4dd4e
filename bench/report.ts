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
import { costTable, fleetTable, hopsTable, targetsTable, throughputTable } from './report-tables';
import type { BenchResults } from './run-results';

export const FIGURES_START = '<!-- bench:figures:start (written by npm run bench) -->';
export const FIGURES_END = '<!-- bench:figures:end -->';

export type ReportInput = Omit<BenchResults, 'client' | 'pacing' | 'memoryMb' | 'plan'>;

/** The generated section's Markdown (without the markers). Pure. */
export function figuresMarkdown(
  r: ReportInput,
  plots: PlotFile[],
  resultsFile: string,
  reportDir: string,
): string {
  const servers = Object.values(r.servers).map((s) => `  - ${s.server}`);
  const blocks = [costTable(r), hopsTable(r), throughputTable(r), fleetTable(r)].filter((b) => b.length);
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
