/**
 * `npm run load -- [--minutes M] [--agents N] [--every S]`: load and soak. One worker process
 * serves N agents (default 10) under the spec's limits; each agent's human writes an echo every S
 * seconds (default 8: 7.5 a minute, under the 12 sends a minute) for M minutes (default 10).
 * Prints, and writes to docs/RELIABILITY.md: messages answered, p50/p99, protocol violations
 * (429s served, overlapping sends, concurrent polls, messages left unread past the simulator's
 * grace after their delivery) and the worker's RSS at start, at the end and its largest, sampled
 * every 30 s. Exits 1 on any violation or unanswered message.
 *
 * On your own cluster: with Temporal's connection settings (`TEMPORAL_ADDRESS`, or a profile by
 * `TEMPORAL_PROFILE` / `TEMPORAL_CONFIG_FILE`, with their TLS and API key; docs/OPERATIONS.md,
 * "Connecting to Temporal") the worker runs against that Temporal instead of a dev server of its
 * own; the simulator stays local.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { collectEchoes, writeEchoes, type Written } from '../bench/chat-traffic';
import { startBenchTemporal } from '../bench/latency';
import { rssMb } from '../bench/proc-stats';
import { prebuildReferenceBundle, startBenchWorker } from '../bench/worker-process';
import { writeMarkdownSection } from '../scripts/markdown-section';
import { startSimulator } from '../simulator';
import { loadTemporalProfile } from '../tools/temporal-profile';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main(): Promise<void> {
  const minutes = arg('minutes', 10);
  const count = arg('agents', 10);
  const everyS = arg('every', 8);
  // A Temporal named by the connection settings, else a dev server of the run's own.
  const external = loadTemporalProfile(process.env);
  const temporal = external
    ? { address: external.address, close: async () => undefined }
    : await startBenchTemporal();
  if (external) console.log(`[load] against Temporal at ${external.address} (${external.origin})`);
  const bundle = await prebuildReferenceBundle();
  const tag = randomUUID().slice(0, 6);
  const agents = Array.from({ length: count }, (_, i) => ({
    id: `load${tag}-${i}`,
    token: `token-${tag}-${i}-${randomUUID()}`,
    creator: 'user:4242',
  }));
  const sim = await startSimulator({ port: 0, agents });
  const worker = await startBenchWorker({
    temporalAddress: temporal.address,
    simulatorUrl: sim.url,
    agents: agents.map((a) => ({ agentKey: a.id, token: a.token })),
    taskQueue: `load-${tag}`,
    limits: {},
    workflowBundle: bundle.file,
  });
  try {
    const rss: number[] = [rssMb(worker.pid)];
    const sampler = setInterval(() => rss.push(rssMb(worker.pid)), 30_000);
    const written: Written[] = [];
    const rounds = Math.floor((minutes * 60) / everyS);
    const start = Date.now();
    for (let r = 0; r < rounds; r++) {
      await new Promise((done) => setTimeout(done, Math.max(0, start + r * everyS * 1000 - Date.now())));
      // One message per agent, spread over the round.
      written.push(
        ...(await writeEchoes(
          sim,
          agents.map((a) => a.id),
          { rate: count / everyS, count, tag: `l${r}-` },
        )),
      );
      if (r % Math.max(1, Math.floor(60 / everyS)) === 0) {
        console.log(
          `[load] ${((Date.now() - start) / 60_000).toFixed(1)} min, ${written.length} written, RSS ${rssMb(worker.pid)} MB`,
        );
      }
    }
    const result = await collectEchoes(sim, written, 120_000);
    clearInterval(sampler);
    rss.push(rssMb(worker.pid));
    let served429 = 0;
    let overlapping = 0;
    let replaced = 0;
    let unreadPastGrace = 0;
    for (const a of agents) {
      const t = await sim.control.transcript({ agent: a.id });
      served429 += Object.values(t.counts.status429).reduce((x, y) => x + y, 0);
      overlapping += t.counts.overlappingSends;
      unreadPastGrace += t.counts.unreadPastGrace;
      replaced += (await sim.control.log(a.id)).filter(
        (l) => l.endpoint === 'updates' && l.status === 409,
      ).length;
    }
    const lines: [string, string | number][] = [
      ['agents / minutes / one echo per agent every', `${count} / ${minutes} / ${everyS} s`],
      ['messages written / answered', `${result.written} / ${result.answered}`],
      ['latency p50 / p99 ms', `${result.latency.p50Ms} / ${result.latency.p99Ms}`],
      ['429s served', served429],
      ['overlapping sends', overlapping],
      ['concurrent polls (409)', replaced],
      ['messages left unread past the grace', unreadPastGrace],
      ['worker RSS at start / end / largest MB', `${rss[0]} / ${rss.at(-1)} / ${Math.max(...rss)}`],
    ];
    console.table(Object.fromEntries(lines));
    await writeSection(
      lines,
      `npm run load${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    );
    const ok =
      result.answered === result.written && served429 + overlapping + replaced + unreadPastGrace === 0;
    process.exitCode = ok ? 0 : 1;
  } finally {
    await worker.stop();
    await sim.close();
    await temporal.close();
    bundle.close();
  }
}

const START = '<!-- load:start (written by npm run load) -->';
const END = '<!-- load:end -->';

async function writeSection(lines: [string, string | number][], command: string): Promise<void> {
  const body = [
    `- **Command:** \`${command}\`, finished ${new Date().toISOString()}; the spec's limits, one worker process`,
    '',
    '| line | figure |',
    '| --- | --- |',
    ...lines.map(([k, v]) => `| ${k} | ${v} |`),
  ].join('\n');
  const path = join(__dirname, '..', 'docs', 'RELIABILITY.md');
  await writeMarkdownSection(path, { start: START, end: END }, '## Load and soak', body);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
