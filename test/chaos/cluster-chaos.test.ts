/**
 * The reduced cluster chaos run (the full one is `npm run chaos -- --cluster`): the native
 * cluster (PostgreSQL, the Temporal server built from its Go module) with toxiproxy between the
 * workers and the frontend, the workers and the service, the server and PostgreSQL; 2 worker
 * processes for 3 agents, about 100 human messages in the dev-server run's mix, 3 worker
 * SIGKILLs, one server restart, about 5 % of the service's answers faulted, network faults one
 * after another (latency, resets, bandwidth limits on each link, a worker cut off from the
 * frontend only), a partition of one worker for longer than the heartbeat timeout and PostgreSQL
 * stopped for longer than a poll's timeout, at least once each. Every verdict line is zero, every
 * message marked read; a failure prints the figures and what became of each stuck session's
 * handler. About 3–4 minutes. Needs `npm run cluster:setup`; fails, never skips, without it.
 */
import { runChaos } from '../../chaos/chaos';
import { chaosLines } from '../../chaos/report';
import { scaledTuning } from '../../bench/scaled-tuning';

jest.setTimeout(600_000);

const WINDOW_MS = 6000;
const tuning = scaledTuning(WINDOW_MS);

it('keeps every promise on the cluster through kills, a restart, database outages and a partition', async () => {
  const partitionMs = 8000;
  const longOutageMs = 8000;
  const result = await runChaos({
    messages: 100,
    kills: 3,
    restarts: 1,
    seed: 11,
    agents: 3,
    workers: 2,
    windowMs: WINDOW_MS,
    stepTimeoutMs: 120_000,
    cluster: {
      networkGapMs: [2000, 6000],
      networkFaultMs: [3000, 6000],
      resetMs: 1500,
      partitionMs,
      postgresGapMs: [15_000, 30_000],
      postgresOutageMs: [2000, 4000],
      longPostgresOutageMs: longOutageMs,
      require: ['partition', 'postgres'],
    },
    log: (l) => console.log(l),
  });
  const summary = chaosLines(result)
    .map(([k, v]) => `${k}: ${v}`)
    .concat(Object.entries(result.nemesis?.met ?? {}).map(([k, n]) => `fault met: ${k}: ${n}`))
    .join('\n');
  console.log(summary);
  // The faults it promises are longer than what they must outlast.
  expect(partitionMs).toBeGreaterThan(tuning.activityHeartbeatTimeoutMs!);
  expect(longOutageMs).toBeGreaterThan(tuning.pollTimeoutSeconds! * 1000);
  // The run did what it says.
  expect(result.messagesWritten).toBeGreaterThanOrEqual(100);
  expect(result.kills).toBe(3);
  expect(result.restarts).toBe(1);
  expect(Object.values(result.sessions).every((n) => n > 0)).toBe(true);
  const met = Object.keys(result.nemesis?.met ?? {});
  expect(met).toEqual(expect.arrayContaining(['partition of one worker (frontend and service)']));
  expect(met.filter((k) => k.startsWith('PostgreSQL long outage'))).toHaveLength(1);
  // ... and lasted as long as promised (the timeline's durations).
  const events = result.nemesis?.events ?? [];
  const longest = (prefix: string) =>
    Math.max(0, ...events.filter((e) => e.kind.startsWith(prefix)).map((e) => e.ms));
  expect(longest('PostgreSQL long outage')).toBeGreaterThanOrEqual(longOutageMs);
  expect(longest('partition of one worker (frontend and service)')).toBeGreaterThanOrEqual(partitionMs);
  expect(met.some((k) => k.startsWith('latency') || k.startsWith('reset') || k.startsWith('bandwidth'))).toBe(
    true,
  );
  // Nothing stuck (a failure prints what became of each stuck session's handler)...
  expect({ stuck: result.stuckDetails, summary }).toEqual({ stuck: [], summary });
  // ... and nothing lost, doubled, unread or against the protocol.
  expect(result.verdict).toMatchObject({
    lost: 0,
    duplicated: 0,
    stuck: 0,
    remindersNotFired: 0,
    remindersFiredTwice: 0,
    approvalsResolvedTwice: 0,
    approvalsUnresolved: 0,
    unread: 0,
    violations: {
      overlappingSends: 0,
      concurrentPolls: 0,
      served429: 0,
      retriesTooSoon: 0,
      unreadPastGrace: 0,
    },
  });
  // Marked read before the replies that quote them, at p95 within the run's limit.
  expect(result.verdict.readTicksLate.p95Ms).toBeLessThanOrEqual(result.verdict.readTicksLate.limitMs);
  expect(result.verdict.ambiguousSurfaced).toBeLessThanOrEqual(result.verdict.ambiguousInjected);
});
