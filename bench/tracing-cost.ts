/**
 * What tracing costs (issue 38, point 3): the added latency of an echo with tracing off and on,
 * measured as the latency section measures it (bench/latency.ts: the reference bot's echo beside
 * the plain loop, same simulator, the two agents writing alternately, limits raised), with
 * amsflow in a worker process of its own (bench/worker-process.ts, as `npm start` runs it) so that
 * its CPU is its own, read from /proc.
 *
 * - **off**: the worker as every other part runs it: no `OTEL_*` variable, no `AMSFLOW_TRACING`
 *   (both stripped from the bench's environment), the reference bundle every part uses. What off
 *   costs is also counted where it would show: the modules of OpenTelemetry's SDK the worker
 *   loaded ({@link OTEL_SDK_MODULE}; a probe reads its module cache at exit) and what reached the
 *   OTLP receiver.
 * - **on**: `OTEL_EXPORTER_OTLP_ENDPOINT` set to an OTLP/HTTP receiver started here
 *   ({@link startOtlpSink}: it accepts what the worker's real exporter sends, the SDK's default
 *   batching, and counts requests, bytes and spans; it is the receiver, not a stand-in for
 *   anything measured), and the bundle with tracing's workflow interceptors, as a worker that
 *   traces bundles it.
 *
 * The runs alternate off, on, then on, off, ... (`rounds` pairs), each with a fresh simulator,
 * worker and agents, so that a drift of the machine (others' load) hits both sides. Per side:
 * p50/p95 of amsflow and of the plain loop and the added latency (amsflow − plain), each the mean
 * of the runs' own (a linear drift cancels from on − off), and the ratio; the worker's CPU per echo
 * (from the warm-up's end to the last reply, idle polls included); spans (by name) and OTLP bytes
 * per echo; then on − off. {@link tracingFigures} is pure.
 */
import { gunzipSync } from 'node:zlib';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureAddedLatency, type BenchTemporal, type StartLatencySide } from './latency';
import type { Percentiles } from './percentiles';
import { cpuMeter, rssMb } from './proc-stats';
import { sleep, waitUntil } from './wait-until';
import { startBenchWorker, type BenchWorker } from './worker-process';

export type TracingMode = 'off' | 'on';

/** What an OTLP receiver has been sent so far. */
export interface OtlpCounts {
  /** Export requests (POST /v1/traces). */
  requests: number;
  /** Their bodies' bytes as sent (compressed if the exporter compressed). */
  bytes: number;
  spans: number;
  /** Spans by name (`RunActivity:pollUpdates`, `RunWorkflow:onMessage`, ...). */
  byName: Record<string, number>;
  /** Requests whose body was not OTLP/JSON (their spans are not counted). */
  undecoded: number;
}

export interface OtlpSink {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it (the exporter appends `/v1/traces`). */
  endpoint: string;
  counts(): OtlpCounts;
  close(): Promise<void>;
}

/** The names of the spans in one OTLP/JSON export request (`ExportTraceServiceRequest`). Pure; throws on what is not JSON. */
export function otlpSpanNames(body: string): string[] {
  const req = JSON.parse(body) as {
    resourceSpans?: { scopeSpans?: { spans?: { name?: string }[] }[] }[];
  };
  return (req.resourceSpans ?? []).flatMap((r) =>
    (r.scopeSpans ?? []).flatMap((s) => (s.spans ?? []).map((span) => span.name ?? '?')),
  );
}

const NO_COUNTS: OtlpCounts = { requests: 0, bytes: 0, spans: 0, byName: {}, undecoded: 0 };

/** What was sent between two readings of a receiver's counts. Pure. */
export function otlpSince(before: OtlpCounts, after: OtlpCounts): OtlpCounts {
  const byName: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.byName)) {
    const d = n - (before.byName[name] ?? 0);
    if (d > 0) byName[name] = d;
  }
  return {
    requests: after.requests - before.requests,
    bytes: after.bytes - before.bytes,
    spans: after.spans - before.spans,
    byName,
    undecoded: after.undecoded - before.undecoded,
  };
}

/** An OTLP/HTTP receiver on loopback: answers every export 200 and counts it; `close()` drops its connections. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const counts: OtlpCounts = { ...NO_COUNTS, byName: {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      counts.requests++;
      counts.bytes += raw.length;
      try {
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const names = otlpSpanNames(body.toString('utf8'));
        counts.spans += names.length;
        for (const name of names) counts.byName[name] = (counts.byName[name] ?? 0) + 1;
      } catch {
        counts.undecoded++;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  // Idle connections kept a minute, as a collector keeps them: with Node's default (5 s) the
  // exporter, which posts a batch every 5 s on the same connection, now and then writes into a
  // connection the receiver is closing, and that batch is lost (the exporter does not retry a reset).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts, byName: { ...counts.byName } }),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/**
 * The worker's variables for `mode`: every `OTEL_*` variable and `AMSFLOW_TRACING` of the bench's
 * own environment unset (the worker gets OpenTelemetry's defaults), and with `endpoint` the OTLP
 * endpoint that turns tracing on. Pure.
 */
export function tracingEnv(env: NodeJS.ProcessEnv, endpoint?: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const key of Object.keys(env))
    if (key.startsWith('OTEL_') || key === 'AMSFLOW_TRACING') out[key] = undefined;
  if (endpoint) out.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  return out;
}

/** The order of the runs: off, on, on, off, ... (`rounds` times). Pure. */
export function abbaOrder(rounds: number): TracingMode[] {
  return Array.from({ length: rounds }, (_, i): TracingMode[] =>
    i % 2 === 0 ? ['off', 'on'] : ['on', 'off'],
  ).flat();
}

/** One run: one worker, tracing off or on. */
export interface TracingRun {
  tracing: TracingMode;
  /** Counted echoes answered (the warm-up not counted). */
  echoes: number;
  /** This run's percentiles, of its samples. */
  amsflow: Percentiles;
  plain: Percentiles;
  /** The worker's CPU from the warm-up's end to the last reply. */
  workerCpuMs: number;
  /** The worker's RSS at the last reply. */
  workerRssMb: number;
  /** What the receiver got for the counted echoes (their spans ended after the warm-up's were exported). */
  otlp: OtlpCounts;
  /** {@link OTEL_SDK_MODULE}s in the worker's module cache at its exit (null: the probe's line was not seen). */
  otelSdkModules: number | null;
  samples: { amsflow: number[]; plain: number[] };
}

type P50P95 = { p50: number; p95: number };

/**
 * One side (off or on). Latency figures are the means of the side's runs' own percentiles, not
 * percentiles of the runs pooled: with the runs in ABBA order a drift of the machine (others'
 * load) cancels from on − off in the means, while a pooled median of two runs that drifted apart
 * falls wherever the mixture puts it.
 */
export interface TracingSide {
  runs: number;
  echoes: number;
  amsflowMs: P50P95;
  plainMs: P50P95;
  /** amsflow − plain loop, each run's, averaged. */
  addedMs: P50P95;
  /** amsflow ÷ plain loop, of the means. */
  ratio: P50P95;
  /** Each run's added p50, in order: the spread between runs of one side. */
  runAddedP50Ms: number[];
  workerCpuMsPerEcho: number;
  workerRssMb: number;
  spansPerEcho: number;
  /** Spans per echo by name. */
  spansByName: Record<string, number>;
  otlpBytesPerEcho: number;
  otlpRequests: number;
  /** The most any run's worker loaded (null: not seen). */
  otelSdkModules: number | null;
}

export interface TracingResult {
  messages: number;
  spacingMs: number;
  order: TracingMode[];
  off: TracingSide;
  on: TracingSide;
  /** on − off: what tracing adds to an echo. */
  costMs: P50P95;
  /** The standard error of `costMs`, from the spread of each side's runs (NaN under 2 runs a side). */
  costSeMs: P50P95;
  cpuMsPerEcho: number;
  cpuSeMsPerEcho: number;
  runs: TracingRun[];
}

const round = (v: number, digits: number) => +v.toFixed(digits);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => (xs.length ? sum(xs) / xs.length : NaN);

/**
 * The standard error of mean(a) − mean(b), from the spread of each (sample variances); NaN when
 * either has fewer than 2 values. Pure.
 */
export function standardError(a: number[], b: number[]): number {
  const variance = (xs: number[]) => sum(xs.map((x) => (x - mean(xs)) ** 2)) / (xs.length - 1);
  if (a.length < 2 || b.length < 2) return NaN;
  return Math.sqrt(variance(a) / a.length + variance(b) / b.length);
}

function side(runs: TracingRun[]): TracingSide {
  const echoes = sum(runs.map((r) => r.echoes));
  const per = (v: number, digits: number) => (echoes > 0 ? round(v / echoes, digits) : NaN);
  const avg = (f: (r: TracingRun) => number): number => round(mean(runs.map(f)), 1);
  const amsflowMs = { p50: avg((r) => r.amsflow.p50Ms), p95: avg((r) => r.amsflow.p95Ms) };
  const plainMs = { p50: avg((r) => r.plain.p50Ms), p95: avg((r) => r.plain.p95Ms) };
  const modules = runs.map((r) => r.otelSdkModules).filter((m): m is number => m !== null);
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.otlp.byName)))].sort();
  return {
    runs: runs.length,
    echoes,
    amsflowMs,
    plainMs,
    addedMs: {
      p50: avg((r) => r.amsflow.p50Ms - r.plain.p50Ms),
      p95: avg((r) => r.amsflow.p95Ms - r.plain.p95Ms),
    },
    ratio: { p50: round(amsflowMs.p50 / plainMs.p50, 2), p95: round(amsflowMs.p95 / plainMs.p95, 2) },
    runAddedP50Ms: runs.map((r) => round(r.amsflow.p50Ms - r.plain.p50Ms, 1)),
    workerCpuMsPerEcho: per(sum(runs.map((r) => r.workerCpuMs)), 1),
    workerRssMb: round(Math.max(...runs.map((r) => r.workerRssMb)), 1),
    spansPerEcho: per(sum(runs.map((r) => r.otlp.spans)), 2),
    spansByName: Object.fromEntries(
      names.map((n) => [n, per(sum(runs.map((r) => r.otlp.byName[n] ?? 0)), 2)]),
    ),
    otlpBytesPerEcho: per(sum(runs.map((r) => r.otlp.bytes)), 0),
    otlpRequests: sum(runs.map((r) => r.otlp.requests)),
    otelSdkModules: modules.length ? Math.max(...modules) : null,
  };
}

/** The section's figures from its runs (in the order they ran). Pure. */
export function tracingFigures(
  runs: TracingRun[],
  plan: { messages: number; spacingMs: number },
): TracingResult {
  const offRuns = runs.filter((r) => r.tracing === 'off');
  const onRuns = runs.filter((r) => r.tracing === 'on');
  const off = side(offRuns);
  const on = side(onRuns);
  const se = (f: (r: TracingRun) => number) => round(standardError(onRuns.map(f), offRuns.map(f)), 1);
  return {
    messages: plan.messages,
    spacingMs: plan.spacingMs,
    order: runs.map((r) => r.tracing),
    off,
    on,
    costMs: {
      p50: round(on.addedMs.p50 - off.addedMs.p50, 1),
      p95: round(on.addedMs.p95 - off.addedMs.p95, 1),
    },
    costSeMs: {
      p50: se((r) => r.amsflow.p50Ms - r.plain.p50Ms),
      p95: se((r) => r.amsflow.p95Ms - r.plain.p95Ms),
    },
    cpuMsPerEcho: round(on.workerCpuMsPerEcho - off.workerCpuMsPerEcho, 1),
    cpuSeMsPerEcho: se((r) => r.workerCpuMs / Math.max(1, r.echoes)),
    runs,
  };
}

/**
 * A module of OpenTelemetry's SDK or of Temporal's OpenTelemetry interceptors, by its path. The
 * API (`@opentelemetry/api`) is not counted: the AI SDK (`ai`) imports it whether or not anything
 * traces, and without a registered SDK its calls do nothing.
 */
export const OTEL_SDK_MODULE =
  /[\\/]node_modules[\\/](@opentelemetry[\\/](?!api[\\/])|@temporalio[\\/]interceptors-opentelemetry[\\/])/;

/** The probe's line: how many of those modules the worker's module cache held at its exit. */
const PROBE_MARK = 'bench-probe: opentelemetry sdk modules ';
const PROBE_SOURCE = `process.on('exit', () => {
  const sdk = new RegExp(${JSON.stringify(OTEL_SDK_MODULE.source)});
  const n = Object.keys(require.cache).filter((f) => sdk.test(f)).length;
  process.stdout.write(${JSON.stringify(PROBE_MARK)} + n + '\\n');
});
`;

/** After the warm-up, before counting: the SDK's batch (5 s by default) exports the warm-up's spans. */
const QUIET_MS = 6000;

export interface TracingOptions {
  messages: number;
  spacingMs: number;
  rounds: number;
  /** Prebuilt reference bundles (bench/worker-process.ts): without tracing, and with it. */
  bundles: { off: string; on: string };
  progress(line: string): void;
}

async function tracingRun(
  temporal: BenchTemporal,
  mode: TracingMode,
  o: TracingOptions & { probe: string },
): Promise<TracingRun> {
  const sink = await startOtlpSink();
  let worker: BenchWorker | undefined;
  let before: OtlpCounts | undefined;
  let meter: ReturnType<typeof cpuMeter> | undefined;
  let used: { cpuMs: number; rss: number } | undefined;
  const start: StartLatencySide = async (s) => {
    const w = await startBenchWorker({
      temporalAddress: temporal.address,
      simulatorUrl: s.sim.url,
      agents: [{ agentKey: s.agentKey, token: s.token }],
      taskQueue: `bench-tracing-${s.agentKey}`,
      limits: s.limits,
      workflowBundle: o.bundles[mode],
      nodeArgs: ['-r', o.probe],
      env: tracingEnv(process.env, mode === 'on' ? sink.endpoint : undefined),
    });
    worker = w;
    return {
      async measuring() {
        await sleep(QUIET_MS);
        before = sink.counts();
        meter = cpuMeter(w.pid);
      },
      measured() {
        used = { cpuMs: meter?.stop().cpuMs ?? NaN, rss: rssMb(w.pid) };
      },
      shutdown: () => w.stop(),
    };
  };
  try {
    // The worker has stopped when this returns: a traced one has exported its last batch.
    const latency = await measureAddedLatency(temporal, o, start);
    const after = sink.counts();
    const probed = await waitUntil(
      'the worker’s module probe',
      async () => worker?.output.find((l) => l.startsWith(PROBE_MARK)),
      3000,
    ).catch(() => undefined);
    if (mode === 'on' && after.spans === 0) throw new Error('tracing on, but the OTLP receiver got no span');
    return {
      tracing: mode,
      echoes: latency.samples.amsflow.length,
      amsflow: latency.amsflow,
      plain: latency.plain,
      workerCpuMs: used?.cpuMs ?? NaN,
      workerRssMb: used?.rss ?? NaN,
      otlp: otlpSince(before ?? NO_COUNTS, after),
      otelSdkModules: probed ? Number(probed.slice(PROBE_MARK.length)) : null,
      samples: latency.samples,
    };
  } finally {
    await sink.close();
  }
}

/** The section on `temporal`: `rounds` × (off, on) in ABBA order. */
export async function measureTracingCost(temporal: BenchTemporal, o: TracingOptions): Promise<TracingResult> {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-bench-probe-'));
  const probe = join(dir, 'otel-probe.js');
  writeFileSync(probe, PROBE_SOURCE);
  const runs: TracingRun[] = [];
  try {
    const order = abbaOrder(o.rounds);
    for (const [i, mode] of order.entries()) {
      o.progress(
        `tracing (${temporal.kind} server): run ${i + 1} of ${order.length}, tracing ${mode}, ${o.messages} echoes`,
      );
      const run = await tracingRun(temporal, mode, { ...o, probe });
      o.progress(
        `tracing (${temporal.kind} server): tracing ${mode}: amsflow p50 ${run.amsflow.p50Ms} ms, plain loop ${run.plain.p50Ms} ms, ` +
          `worker ${(run.workerCpuMs / Math.max(1, run.echoes)).toFixed(1)} ms CPU/echo, ${run.otlp.spans} spans`,
      );
      runs.push(run);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return tracingFigures(runs, o);
}
