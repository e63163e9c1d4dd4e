/**
 * `npm run chaos -- [--messages N] [--kills K] [--restarts R] [--minutes M] [--seed S]`: the full
 * chaos run (defaults: 1,000 messages, 20 kills, 2 server restarts, 60 minutes at most), on
 * loopback, printing its progress; then the verdict, written also to docs/RELIABILITY.md with the
 * command that reproduces it. Exits 1 when a loss, duplicate, stuck or violation line is not zero.
 * With `AMSFLOW_CHAOS_KEEP=<dir>`, the Temporal database, the service's transcripts and request
 * logs and the workers' output are kept there for a post-mortem.
 */
import { join } from 'node:path';
import { runChaos } from './chaos';
import { printChaos, writeChaosReport } from './report';
import { clean } from './tally';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`chaos: --${name} needs a number, got ${process.argv[i + 1] ?? 'nothing'}`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const started = Date.now();
  const result = await runChaos({
    messages: option('messages', 1000),
    kills: option('kills', 20),
    restarts: option('restarts', 2),
    minutes: option('minutes', 60),
    seed: option('seed', 1),
    ...(process.env.AMSFLOW_CHAOS_KEEP ? { keepDir: process.env.AMSFLOW_CHAOS_KEEP } : {}),
    log: (line) => console.log(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`),
  });
  printChaos(result);
  const command = `npm run chaos${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  await writeChaosReport(join(__dirname, '..', 'docs', 'RELIABILITY.md'), result, command);
  process.exit(clean(result.verdict) ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
