/**
 * `npm run bench [-- --quick] [options of bench/plan.ts]`: every target of the cost-and-scale
 * issue, on this machine, in one run. The client's own figures; then, on Temporal's stock dev
 * server and on amsflow's embedded one, each in turn: added latency beside the plain loop,
 * throughput, live chat and recovery (the worker under ts-node as `npm start` runs it, and compiled
 * as the image runs it); then once, on the embedded server: the cost table from
 * histories, the send budget and priority lanes, the fleet and the history soak; and the plain
 * loop's throughput ladder. Writes bench/results/<date>[-quick].json, the plots beside it, and
 * the generated sections of bench/REPORT.md; prints the tables. Slow figures are reported, never
 * a failure. `--only tracing` measures tracing's cost alone (bench/tracing-cost.ts), into
 * bench/results/<date>-tracing[-quick].json and its own section of the report.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { measureClient } from './client-micro';
import { SERVER_KINDS, startBenchTemporal, type ServerKind } from './latency';
import { BenchOptionError, benchPlan, type BenchPlan } from './plan';
import { writePlots } from './plots';
import { printResults, printTracingResults } from './print';
import { writeReportFigures, writeTracingReport } from './report';
import { ok, type BenchResults, type OnceResults, type OnlyResults, type ServerResults } from './run-results';
import {
  onceSections,
  plainSection,
  latencySection,
  serverSections,
  tracingSection,
  type BenchBundles,
  type Progress,
} from './sections';
import { buildCompiledWorker, prebuildReferenceBundle } from './worker-process';

const startedAt = Date.now();

/** One progress line, with the time since the start. */
const progress: Progress = (line) =>
  console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${line}`);

/** The reference bundle without tracing and with it; `close()` removes both. */
async function prebuildBundles(): Promise<BenchBundles & { close(): void }> {
  const off = await prebuildReferenceBundle();
  const on = await prebuildReferenceBundle({ tracing: true }).catch((err: unknown) => {
    off.close();
    throw err;
  });
  return {
    off: off.file,
    on: on.file,
    close() {
      off.close();
      on.close();
    },
  };
}

/** Each server kind of the plan in turn; the once-only parts on the embedded one. */
async function measureServers(
  plan: BenchPlan,
): Promise<{ servers: Partial<Record<ServerKind, ServerResults>>; once: OnceResults }> {
  const servers: Partial<Record<ServerKind, ServerResults>> = {};
  let once: OnceResults = {};
  const bundles = await prebuildBundles();
  progress('compiling the worker as the image does (for recovery)');
  const compiled = await buildCompiledWorker();
  try {
    for (const kind of plan.servers) {
      progress(`starting the ${kind} Temporal dev server`);
      const temporal = await startBenchTemporal({ stock: kind === 'stock' });
      try {
        servers[kind] = await serverSections(temporal, plan, bundles, compiled.main, progress);
        if (kind === 'embedded') once = await onceSections(temporal, plan, bundles.off, progress);
      } finally {
        await temporal.close();
      }
    }
  } finally {
    bundles.close();
    compiled.close();
  }
  return { servers, once };
}

/** The machine, as the results and the report name it. */
function machine(): BenchResults['machine'] {
  const cpu = cpus();
  return { cpus: cpu.length, model: cpu[0]?.model ?? 'cpu', memoryGb: Math.round(totalmem() / 2 ** 30) };
}

/** Where a run writes: its results folder (JSON and plots) and the report whose section it rewrites. */
export interface RunOutput {
  command: string;
  resultsDir: string;
  reportPath: string;
}

/** What every results file says of its run: when, on what, how it was asked. */
function runFacts(plan: BenchPlan, out: RunOutput) {
  return {
    at: new Date().toISOString(),
    node: process.version,
    mode: plan.mode,
    command: out.command,
    machine: machine(),
    plan,
  };
}

/** Writes `results` as `<name>.json` in the results folder; its path. */
function writeResults(out: RunOutput, name: string, results: object): string {
  mkdirSync(out.resultsDir, { recursive: true });
  const resultsFile = join(out.resultsDir, `${name}.json`);
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  return resultsFile;
}

/** Runs `plan`, writes its results, plots and report section, prints its tables; the results. */
export async function runBench(plan: BenchPlan, out: RunOutput): Promise<BenchResults> {
  progress(`${out.command}: ${plan.mode} run on ${plan.servers.join(' and ')}`);
  const clientFigures = await measureClient();
  const { servers, once } = await measureServers(plan);
  const plainThroughput = await plainSection(plan, progress);
  const memory = process.memoryUsage();
  const results: BenchResults = {
    ...runFacts(plan, out),
    ...clientFigures,
    servers,
    ...once,
    plainThroughput,
    memoryMb: { rss: +(memory.rss / 2 ** 20).toFixed(1), heapUsed: +(memory.heapUsed / 2 ** 20).toFixed(1) },
  };
  const name = `${results.at.slice(0, 10)}${plan.mode === 'quick' ? '-quick' : ''}`;
  const resultsFile = writeResults(out, name, results);
  const plots = writePlots(results, join(out.resultsDir, name), dirname(out.reportPath));
  await writeReportFigures(out.reportPath, results, plots, resultsFile);
  if (Object.values(servers).some((s) => s.tracing !== undefined))
    await writeTracingReport(out.reportPath, results, resultsFile);
  printResults(results);
  progress(`done; results: ${resultsFile}; figures and plots: ${out.reportPath}`);
  return results;
}

/**
 * Runs one part alone (`--only tracing`, with the latency section as its reference) on the plan's servers: its results in
 * `<date>-tracing[-quick].json`, its own section of the report (the figures of the last full run
 * are left alone), its tables printed.
 */
export async function runOnly(plan: BenchPlan & { only: 'tracing' }, out: RunOutput): Promise<OnlyResults> {
  progress(`${out.command}: ${plan.mode} run of ${plan.only} alone, on ${plan.servers.join(' and ')}`);
  const servers: OnlyResults['servers'] = {};
  const bundles = await prebuildBundles();
  try {
    for (const kind of plan.servers) {
      progress(`starting the ${kind} Temporal dev server`);
      const temporal = await startBenchTemporal({ stock: kind === 'stock' });
      try {
        // The latency section first, as a full run has it: the bench's usual figure, tracing off.
        const latency = await latencySection(temporal, plan, progress);
        servers[kind] = {
          kind,
          server: SERVER_KINDS[kind],
          latency,
          tracing: await tracingSection(temporal, plan, bundles, progress),
        };
      } finally {
        await temporal.close();
      }
    }
  } finally {
    bundles.close();
  }
  const results: OnlyResults = { ...runFacts(plan, out), plan, only: plan.only, servers };
  const name = `${results.at.slice(0, 10)}-${plan.only}${plan.mode === 'quick' ? '-quick' : ''}`;
  const resultsFile = writeResults(out, name, results);
  await writeTracingReport(out.reportPath, results, resultsFile);
  printTracingResults(results);
  const measured = Object.values(servers).filter((s) => ok(s.tracing)).length;
  progress(
    `done (${measured} of ${plan.servers.length} servers measured); results: ${resultsFile}; section: ${out.reportPath}`,
  );
  return results;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const plan = benchPlan(args);
  const out: RunOutput = {
    command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`,
    resultsDir: join(__dirname, 'results'),
    reportPath: join(__dirname, 'REPORT.md'),
  };
  if (plan.only) await runOnly({ ...plan, only: plan.only }, out);
  else await runBench(plan, out);
}

if (require.main === module)
  main().catch((err: unknown) => {
    if (err instanceof BenchOptionError) {
      console.error(err.message);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  });
