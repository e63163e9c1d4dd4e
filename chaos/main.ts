/**
 * `npm run chaos -- [--messages N] [--kills K] [--restarts R] [--minutes M] [--seed S]
 * [--unread-grace-ms G] [--read-late-ms L]`: the full chaos run (defaults: 1,000 messages, 20
 * kills, 2 server restarts, 60 minutes at most), on loopback, printing its progress; then the
 * verdict, written also to docs/RELIABILITY.md with the command that reproduces it. Exits 1 when a loss, duplicate, stuck, unread or violation line is
 * not zero (a message unread `--unread-grace-ms` after its delivery, default 15000, is a
 * violation), or when the read ticks come, at p95, more than `--read-late-ms` (default 5000) after
 * the replies that quote their messages.
 *
 * `npm run chaos -- --cluster [...]`: the same on the native PostgreSQL cluster behind toxiproxy
 * (chaos/cluster-stage.ts, chaos/nemesis.ts); defaults: 10,000 messages, 100 kills, 5 server
 * restarts, 6 agents, a database outage every `--postgres-every` seconds on average (default 180;
 * the first lasts `--long-outage`, default 35 s), a network fault every `--network-every` seconds
 * on average (default 30), a partition of `--partition` seconds (default 15), writing for 360
 * minutes at most. Its results go to the cluster sections of docs/RELIABILITY.md, earlier runs kept.
 *
 * With `AMSFLOW_CHAOS_KEEP=<dir>`, the service's transcripts and request logs and the workers'
 * output (and on the dev server its database) are kept there for a post-mortem.
 */
import { join } from 'node:path';
import { CHAOS_UNREAD_GRACE_MS, runChaos, type ChaosOptions } from './chaos';
import { printChaos, writeChaosReport, writeClusterChaosReport } from './report';
import { flagProblem, type NUMBER_FLAGS } from './flags';
import { clean } from './tally';

/** A number flag's value (checked by `flagProblem` before the run starts). */
function option(name: (typeof NUMBER_FLAGS)[number], fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

/** The nemesis of a cluster run, from its flags (seconds on the command line). */
function clusterOptions(): NonNullable<ChaosOptions['cluster']> {
  const around = (seconds: number): [number, number] => [seconds * 500, seconds * 1500];
  return {
    networkGapMs: around(option('network-every', 30)),
    networkFaultMs: [10_000, 30_000],
    resetMs: 2000,
    partitionMs: option('partition', 15) * 1000,
    postgresGapMs: around(option('postgres-every', 180)),
    postgresOutageMs: [2000, 10_000],
    longPostgresOutageMs: option('long-outage', 35) * 1000,
    require: ['partition', 'postgres'],
  };
}

async function main(): Promise<void> {
  const problem = flagProblem(process.argv.slice(2));
  if (problem) {
    console.error(`chaos: ${problem}`);
    process.exit(2);
  }
  const started = Date.now();
  const cluster = process.argv.includes('--cluster');
  const result = await runChaos({
    messages: option('messages', cluster ? 10_000 : 1000),
    kills: option('kills', cluster ? 100 : 20),
    restarts: option('restarts', cluster ? 5 : 2),
    minutes: option('minutes', cluster ? 360 : 60),
    seed: option('seed', 1),
    agents: option('agents', cluster ? 6 : 3),
    // On the cluster a step may meet a 35-s outage, a kill and the poll's 30-s backoff in a row.
    stepTimeoutMs: option('step-timeout', cluster ? 180 : 90) * 1000,
    workers: option('workers', 2),
    // A message unread this long after its delivery is a protocol violation (the simulator counts it).
    unreadGraceMs: option('unread-grace-ms', CHAOS_UNREAD_GRACE_MS),
    // The run fails when its read ticks come, at p95, more than this long after their replies.
    readLateP95Ms: option('read-late-ms', 5000),
    ...(cluster ? { cluster: clusterOptions() } : {}),
    ...(process.env.AMSFLOW_CHAOS_KEEP ? { keepDir: process.env.AMSFLOW_CHAOS_KEEP } : {}),
    log: (line) => console.log(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`),
  });
  printChaos(result);
  const command = `npm run chaos${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const report = join(__dirname, '..', 'docs', 'RELIABILITY.md');
  await (cluster ? writeClusterChaosReport : writeChaosReport)(report, result, command);
  process.exit(clean(result.verdict) ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
