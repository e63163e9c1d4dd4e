/**
 * The chaos runs' report in docs/RELIABILITY.md: a cluster run replaces the last run's section
 * and adds its row on top of the runs table, keeping every earlier row (with what each found);
 * the dev-server run's section is left alone by it, and the other way round.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChaosResult } from '../../chaos/chaos';
import {
  CHAOS_END,
  CHAOS_START,
  chaosLines,
  CLUSTER_END,
  CLUSTER_START,
  MUST_BE_ZERO,
  nonZeroLines,
  READ_TICKS_LINE,
  RUNS_END,
  RUNS_START,
} from '../../chaos/report';

/**
 * Calls a writer of chaos/report.ts in a Node process of its own, as `npm run chaos` does
 * (Prettier, which formats the file, loads its plugins with a dynamic import jest cannot run).
 */
function write(
  writer: 'writeChaosReport' | 'writeClusterChaosReport',
  path: string,
  r: ChaosResult,
  command: string,
) {
  const code = `require(${JSON.stringify(resolve(__dirname, '../../chaos/report'))}).${writer}(process.env.P, JSON.parse(process.env.R), process.env.C).catch((e) => { console.error(e); process.exit(1); })`;
  execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', code], {
    cwd: resolve(__dirname, '../..'),
    env: { ...process.env, P: path, R: JSON.stringify(r), C: command },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const verdict = {
  lost: 0,
  duplicated: 0,
  stuck: 0,
  remindersNotFired: 0,
  remindersFiredTwice: 0,
  approvalsResolvedTwice: 0,
  approvalsUnresolved: 0,
  ambiguousSurfaced: 0,
  rejectedSurfaced: 0,
  ambiguousInjected: 3,
  unread: 0,
  readTicksLate: { measured: 40, count: 2, p95Ms: 0, maxMs: 1500, limitMs: 5000 },
  violations: {
    overlappingSends: 0,
    concurrentPolls: 0,
    served429: 0,
    retriesTooSoon: 0,
    unreadPastGrace: 0,
  },
  unreadPastGraceWithStalls: 1,
};

function result(over: Partial<ChaosResult> = {}): ChaosResult {
  return {
    options: {
      messages: 100,
      kills: 3,
      restarts: 1,
      agents: 3,
      workers: 2,
      windowMs: 6000,
      faultShare: 0.05,
      seed: 1,
      minutes: 10,
      stepTimeoutMs: 90_000,
      unreadGraceMs: 10_000,
      readLateP95Ms: 5000,
    },
    verdict,
    messagesWritten: 100,
    sessions: { echo: 40, signup: 20, reminder: 15, approval: 15, media: 10 },
    kills: 3,
    restarts: 1,
    faultsInjected: { 'messages drop_after': 2 },
    requests: 500,
    unexpectedExits: 0,
    unservedMs: 4200,
    slowestStepMs: 12_000,
    recoveryMs: [1000, 2000],
    durationMs: 180_000,
    stuckDetails: [],
    nemesis: {
      met: { 'PostgreSQL long outage (crash)': 1, 'partition of one worker (frontend and service)': 2 },
      events: [],
      errors: [],
    },
    ...over,
  };
}

function reportFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'amsflow-report-')), 'RELIABILITY.md');
  writeFileSync(
    path,
    [
      '# Reliability',
      '',
      CHAOS_START,
      '',
      'the dev-server run',
      '',
      CHAOS_END,
      '',
      '## Chaos on the cluster',
      '',
      RUNS_START,
      '',
      '| finished | command | duration | messages / kills / restarts / outages / network faults | found |',
      '| --- | --- | --- | --- | --- |',
      '',
      RUNS_END,
      '',
      CLUSTER_START,
      '',
      'No run yet.',
      '',
      CLUSTER_END,
      '',
    ].join('\n'),
  );
  return path;
}

it('adds each cluster run on top of the runs table, keeping the earlier ones and what they found', () => {
  const path = reportFile();
  const stuck = { ...verdict, stuck: 2 };
  write(
    'writeClusterChaosReport',
    path,
    result({ verdict: stuck, stuckDetails: ['echo "c1" on a: x'] }),
    'first',
  );
  write('writeClusterChaosReport', path, result(), 'second');
  const text = readFileSync(path, 'utf8');
  const runs = text.slice(text.indexOf(RUNS_START), text.indexOf(RUNS_END));
  const rows = runs.split('\n').filter((l) => l.startsWith('| '));
  expect(rows).toHaveLength(4);
  expect(rows[2]).toMatch(/`second`.*3\.0 min.*100 \/ 3 \/ 1 \/ 1 \/ 2 .*clean: every line 0/);
  expect(rows[3]).toMatch(/`first`.*conversations stuck or at the wrong step: 2/);
  // The last run's section is the second run's alone, every verdict line and fault kind in it.
  const last = text.slice(text.indexOf(CLUSTER_START), text.indexOf(CLUSTER_END));
  expect(last).toContain('`second`');
  expect(last).not.toContain('`first`');
  expect(last).not.toContain('No run yet.');
  expect(last).toMatch(/human messages unread at the end\s*\| 0/);
  expect(last).toMatch(/protocol: messages left unread past the grace\s*\| 0/);
  expect(last).toMatch(/read ticks later than their reply: count, p95 \/ max ms\s*\| 2, 0 \/ 1500/);
  expect(last).toContain('a message unread more than 10000 ms after its delivery counted as a violation');
  expect(last).toMatch(/fault met: PostgreSQL long outage \(crash\)\s*\| 1/);
  // The dev-server run's section is untouched.
  expect(text).toContain('the dev-server run');
});

it('leaves the cluster sections alone when the dev-server run writes its own', async () => {
  const path = reportFile();
  write('writeClusterChaosReport', path, result(), 'cluster');
  const before = readFileSync(path, 'utf8');
  write('writeChaosReport', path, result({ nemesis: undefined }), 'dev');
  const after = readFileSync(path, 'utf8');
  const cluster = (t: string) => t.slice(t.indexOf(RUNS_START));
  expect(cluster(after)).toBe(cluster(before));
  expect(after).not.toContain('the dev-server run');
  expect(after).toContain('`dev`');
});

describe('the verdict lines', () => {
  it('must be zero for unread messages and messages left unread past the grace, then show the read ticks', () => {
    const lines = chaosLines(result());
    const zero = lines.slice(0, MUST_BE_ZERO).map(([k]) => k);
    expect(zero).toContain('human messages unread at the end');
    expect(zero).toContain('protocol: messages left unread past the grace');
    expect(zero).not.toContain('human messages never marked read');
    expect(lines[MUST_BE_ZERO]).toEqual([READ_TICKS_LINE, '2, 0 / 1500']);
  });

  it('names what a run found: unread, past the grace, and read ticks over their limit', () => {
    expect(nonZeroLines(result())).toBe('clean: every line 0');
    const found = nonZeroLines(
      result({
        verdict: {
          ...verdict,
          unread: 1,
          readTicksLate: { measured: 10, count: 3, p95Ms: 7000, maxMs: 40_000, limitMs: 5000 },
          violations: { ...verdict.violations, unreadPastGrace: 2 },
        },
      }),
    );
    expect(found).toBe(
      'human messages unread at the end: 1; protocol: messages left unread past the grace: 2; ' +
        'read ticks later than their reply: p95 7000 ms, over the 5000-ms limit',
    );
  });
});
