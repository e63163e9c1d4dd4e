/**
 * The chaos run's figures: a console summary and the sections of docs/RELIABILITY.md it writes
 * (the dev-server run's; on the cluster, the last run's and a row in the table of runs).
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeMarkdownSection } from '../scripts/markdown-section';
import type { ChaosResult } from './chaos';

export const CHAOS_START = '<!-- chaos:start (written by npm run chaos) -->';
export const CHAOS_END = '<!-- chaos:end -->';

/** How many of {@link chaosLines} come first and must be zero (the verdict proper). */
export const MUST_BE_ZERO = 13;

/** The line after the zero lines: its p95 must stay within the run's limit (`readLateP95Ms`). */
export const READ_TICKS_LINE = 'read ticks later than their reply: count, p95 / max ms';

/** The verdict's lines: what must be zero, then the figures beside them. */
export function chaosLines(r: ChaosResult): [string, string | number][] {
  const v = r.verdict;
  const rec = r.recoveryMs.filter(Number.isFinite).sort((a, b) => a - b);
  const pct = (p: number) => (rec.length ? rec[Math.min(rec.length - 1, Math.floor(p * rec.length))] : NaN);
  const late = v.readTicksLate;
  return [
    ['messages lost', v.lost],
    ['sends duplicated (a reply, confirmation or question twice)', v.duplicated],
    ['conversations stuck or at the wrong step', v.stuck],
    ['reminders fired 0 times', v.remindersNotFired],
    ['reminders fired 2 times', v.remindersFiredTwice],
    ['approvals resolved twice', v.approvalsResolvedTwice],
    ['approvals never resolved', v.approvalsUnresolved],
    ['human messages unread at the end', v.unread],
    ['protocol: overlapping sends', v.violations.overlappingSends],
    ['protocol: concurrent polls (409s not injected)', v.violations.concurrentPolls],
    ['protocol: 429s served by the limiter (not injected)', v.violations.served429],
    ['protocol: requests sooner than allowed after a 429', v.violations.retriesTooSoon],
    ['protocol: messages left unread past the grace', v.violations.unreadPastGrace],
    [READ_TICKS_LINE, `${late.count}, ${late.p95Ms} / ${late.maxMs}`],
    ['ambiguous sends surfaced (AmbiguousSend reported, not lost)', v.ambiguousSurfaced],
    ['replies given up after the retries (SendRejected reported)', v.rejectedSurfaced],
    ['faults injected that leave a send ambiguous', v.ambiguousInjected],
    ['messages unread past the grace, faults that stop everything counted', v.unreadPastGraceWithStalls],
    [
      "the cluster not serving an agent's workflow (its describes unanswered), s summed over agents",
      (r.unservedMs / 1000).toFixed(1),
    ],
    ['human messages written', r.messagesWritten],
    ['sessions (echo / signup / reminder / approval / photo)', Object.values(r.sessions).join(' / ')],
    ['worker SIGKILLs', r.kills],
    ['workers that exited by themselves (started again)', r.unexpectedExits],
    ['Temporal server restarts', r.restarts],
    [
      'requests to the service / faults injected',
      `${r.requests} / ${Object.values(r.faultsInjected).reduce((a, b) => a + b, 0)}`,
    ],
    ['recovery after a kill (next accepted reply), p50 / max ms', `${pct(0.5)} / ${rec.at(-1) ?? NaN}`],
    ['slowest step (a human waiting for the answer), s', (r.slowestStepMs / 1000).toFixed(1)],
    ['duration', `${(r.durationMs / 60_000).toFixed(1)} min`],
  ];
}

/** The read check's settings, for the set-up line: what "past the grace" and "too late" meant. */
function readLimits(r: ChaosResult): string {
  return `a message unread more than ${r.options.unreadGraceMs} ms after its delivery counted as a violation, the read ticks' p95 allowed up to ${r.options.readLateP95Ms} ms after their replies (neither counting the time a database outage, a partition or a server restart stopped everything, nor the time the cluster did not answer a describe of the agent's workflow; the grace not counting the time a latency, reset or bandwidth fault slowed the links either)`;
}

export function printChaos(r: ChaosResult): void {
  console.table(Object.fromEntries(chaosLines(r)));
  console.log('faults injected (met by a request):', r.faultsInjected);
  if (r.nemesis) console.log('faults met on the cluster:', r.nemesis.met);
  for (const line of r.stuckDetails) console.log(`stuck: ${line}`);
}

/** Writes the run's section into the reliability report (between the markers, or appended). */
export async function writeChaosReport(path: string, r: ChaosResult, command: string): Promise<void> {
  const body = [
    `- **Command:** \`${command}\`, finished ${new Date().toISOString()}, seed ${r.options.seed}`,
    `- **Set-up:** ${r.options.workers} worker processes for ${r.options.agents} agents, the simulator's window ${r.options.windowMs} ms (the spec's minute scaled), about ${Math.round(r.options.faultShare * 100)} % of requests faulted, ${readLimits(r)}`,
    '',
    '| line | figure |',
    '| --- | --- |',
    ...chaosLines(r).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    `Faults met by a request: ${Object.entries(r.faultsInjected)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}.`,
  ].join('\n');
  await writeMarkdownSection(path, { start: CHAOS_START, end: CHAOS_END }, '## Chaos run', body);
}

export const CLUSTER_START = '<!-- cluster-chaos:start (written by npm run chaos -- --cluster) -->';
export const CLUSTER_END = '<!-- cluster-chaos:end -->';
export const RUNS_START = '<!-- cluster-chaos-runs:start (each cluster run adds its row on top) -->';
export const RUNS_END = '<!-- cluster-chaos-runs:end -->';

const RUNS_HEADER = [
  '| finished | command | duration | messages / kills / restarts / outages / network faults | found |',
  '| --- | --- | --- | --- | --- |',
];

/**
 * The verdict lines that are not zero, and the read ticks' p95 when over its limit, as the runs
 * table shows what a run found ("clean" if none).
 */
export function nonZeroLines(r: ChaosResult): string {
  const zeroLines = chaosLines(r).slice(0, MUST_BE_ZERO);
  const found = zeroLines.filter(([, v]) => v !== 0).map(([k, v]) => `${k}: ${v}`);
  const late = r.verdict.readTicksLate;
  if (late.p95Ms > late.limitMs)
    found.push(`read ticks later than their reply: p95 ${late.p95Ms} ms, over the ${late.limitMs}-ms limit`);
  return found.length === 0 ? 'clean: every line 0' : found.join('; ');
}

/** The rows of the runs table already in the file (prettier pads them; the cells are kept). */
function earlierRuns(path: string): string[] {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = text.indexOf(RUNS_START);
  const end = text.indexOf(RUNS_END);
  if (start < 0 || end < start) return [];
  return text
    .slice(start + RUNS_START.length, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2);
}

/**
 * Writes a cluster run into the reliability report: its whole verdict, the faults it met per kind
 * and its set-up (replacing the last run's), and a row on top of the runs table (earlier rows kept).
 */
export async function writeClusterChaosReport(path: string, r: ChaosResult, command: string): Promise<void> {
  const met = r.nemesis?.met ?? {};
  const o = r.options;
  const finished = new Date().toISOString();
  const body = [
    `- **Command:** \`${command}\`, finished ${finished}, seed ${o.seed}`,
    `- **Set-up:** the native cluster (PostgreSQL, the Temporal server built from its Go module), ${o.workers} worker processes for ${o.agents} agents, each worker's links to the Temporal frontend and the service and the server's link to PostgreSQL through toxiproxy; the simulator's window ${o.windowMs} ms (the spec's minute scaled), about ${Math.round(o.faultShare * 100)} % of the service's answers faulted, ${readLimits(r)}`,
    '',
    '| line | figure |',
    '| --- | --- |',
    ...chaosLines(r).map(([k, v]) => `| ${k} | ${v} |`),
    ...Object.entries(met)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `| fault met: ${k} | ${n} |`),
    '',
    `Faults the service injected (met by a request): ${Object.entries(r.faultsInjected)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}.`,
    ...(r.nemesis?.errors.length
      ? [
          '',
          `Calls of the nemesis that failed and were retried: ${r.nemesis.errors.length} (${r.nemesis.errors.slice(0, 5).join('; ')}).`,
        ]
      : []),
    ...(r.stuckDetails.length
      ? ['', 'Stuck, and what became of each handler:', '', ...r.stuckDetails.map((d) => `- ${d}`)]
      : []),
  ].join('\n');
  await writeMarkdownSection(path, { start: CLUSTER_START, end: CLUSTER_END }, '### The last run', body);
  const outages = Object.entries(met)
    .filter(([k]) => k.startsWith('PostgreSQL'))
    .reduce((a, [, n]) => a + n, 0);
  const network = Object.values(met).reduce((a, n) => a + n, 0) - outages;
  const row = `| ${finished.slice(0, 16).replace('T', ' ')} | \`${command}\` | ${(r.durationMs / 60_000).toFixed(1)} min | ${r.messagesWritten} / ${r.kills} / ${r.restarts} / ${outages} / ${network} | ${nonZeroLines(r)} |`;
  const rows = [...RUNS_HEADER, row, ...earlierRuns(path)].join('\n');
  await writeMarkdownSection(path, { start: RUNS_START, end: RUNS_END }, '### The runs', rows);
}
