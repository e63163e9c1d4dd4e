/** The chaos run's figures: a console summary and the section of docs/RELIABILITY.md it writes. */
import { writeMarkdownSection } from '../scripts/markdown-section';
import type { ChaosResult } from './chaos';

export const CHAOS_START = '<!-- chaos:start (written by npm run chaos) -->';
export const CHAOS_END = '<!-- chaos:end -->';

/** The verdict's lines: what must be zero, then the figures beside them. */
export function chaosLines(r: ChaosResult): [string, string | number][] {
  const v = r.verdict;
  const rec = r.recoveryMs.filter(Number.isFinite).sort((a, b) => a - b);
  const pct = (p: number) => (rec.length ? rec[Math.min(rec.length - 1, Math.floor(p * rec.length))] : NaN);
  return [
    ['messages lost', v.lost],
    ['sends duplicated (a reply, confirmation or question twice)', v.duplicated],
    ['conversations stuck or at the wrong step', v.stuck],
    ['reminders fired 0 times', v.remindersNotFired],
    ['reminders fired 2 times', v.remindersFiredTwice],
    ['approvals resolved twice', v.approvalsResolvedTwice],
    ['approvals never resolved', v.approvalsUnresolved],
    ['protocol: overlapping sends', v.violations.overlappingSends],
    ['protocol: concurrent polls (409s not injected)', v.violations.concurrentPolls],
    ['protocol: 429s served by the limiter (not injected)', v.violations.served429],
    ['protocol: requests sooner than allowed after a 429', v.violations.retriesTooSoon],
    ['ambiguous sends surfaced (AmbiguousSend reported, not lost)', v.ambiguousSurfaced],
    ['replies given up after the retries (SendRejected reported)', v.rejectedSurfaced],
    ['faults injected that leave a send ambiguous', v.ambiguousInjected],
    ['human messages written', r.messagesWritten],
    ['sessions (echo / signup / reminder / approval / photo)', Object.values(r.sessions).join(' / ')],
    ['worker SIGKILLs', r.kills],
    ['Temporal server restarts', r.restarts],
    [
      'requests to the service / faults injected',
      `${r.requests} / ${Object.values(r.faultsInjected).reduce((a, b) => a + b, 0)}`,
    ],
    ['recovery after a kill (next accepted reply), p50 / max ms', `${pct(0.5)} / ${rec.at(-1) ?? NaN}`],
    ['duration', `${(r.durationMs / 60_000).toFixed(1)} min`],
  ];
}

export function printChaos(r: ChaosResult): void {
  console.table(Object.fromEntries(chaosLines(r)));
  console.log('faults injected (met by a request):', r.faultsInjected);
}

/** Writes the run's section into the reliability report (between the markers, or appended). */
export async function writeChaosReport(path: string, r: ChaosResult, command: string): Promise<void> {
  const body = [
    `- **Command:** \`${command}\`, finished ${new Date().toISOString()}, seed ${r.options.seed}`,
    `- **Set-up:** ${r.options.workers} worker processes for ${r.options.agents} agents, the simulator's window ${r.options.windowMs} ms (the spec's minute scaled), about ${Math.round(r.options.faultShare * 100)} % of requests faulted`,
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
