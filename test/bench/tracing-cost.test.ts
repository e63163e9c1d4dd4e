/**
 * Tracing's cost (bench/tracing-cost.ts): the pure parts (spans in an OTLP/JSON request, the
 * worker's variables per mode, the runs' order, the figures from the runs, which modules are the
 * SDK's) and the OTLP receiver on loopback, fed as the exporter feeds it.
 */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { percentiles } from '../../bench/percentiles';
import {
  abbaOrder,
  OTEL_SDK_MODULE,
  otlpSince,
  otlpSpanNames,
  standardError,
  startOtlpSink,
  tracingEnv,
  tracingFigures,
  type TracingRun,
} from '../../bench/tracing-cost';

/** An OTLP/JSON export request with `perScope` spans in each of its scopes. */
const exportBody = (...perScope: number[]) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: perScope.map((n) => ({
          scope: { name: 'amsflow' },
          spans: Array.from({ length: n }, (_, i) => ({
            traceId: 't',
            spanId: `s${i}`,
            name: i === 0 ? 'RunActivity:pollUpdates' : 'RunWorkflow:onMessage',
          })),
        })),
      },
    ],
  });

function run(
  tracing: 'off' | 'on',
  amsflow: number[],
  plain: number[],
  o: { cpuMs: number; spans?: number; bytes?: number; modules?: number | null },
): TracingRun {
  const spans = o.spans ?? 0;
  return {
    tracing,
    echoes: amsflow.length,
    amsflow: percentiles(amsflow),
    plain: percentiles(plain),
    workerCpuMs: o.cpuMs,
    workerRssMb: 400,
    otlp: {
      requests: spans ? 1 : 0,
      bytes: o.bytes ?? 0,
      spans,
      byName: spans ? { 'RunActivity:pollUpdates': spans / 3, 'RunWorkflow:onMessage': (2 * spans) / 3 } : {},
      undecoded: 0,
    },
    otelSdkModules: o.modules === undefined ? 0 : o.modules,
    samples: { amsflow, plain },
  };
}

describe('bench/tracing-cost', () => {
  it('names the spans of an OTLP/JSON request over its resources and scopes', () => {
    expect(otlpSpanNames(exportBody(2, 1))).toEqual([
      'RunActivity:pollUpdates',
      'RunWorkflow:onMessage',
      'RunActivity:pollUpdates',
    ]);
    expect(otlpSpanNames('{}')).toEqual([]);
    expect(() => otlpSpanNames('\x0a\x05proto')).toThrow();
  });

  it('what was sent between two readings of the receiver, by name', () => {
    const before = { requests: 2, bytes: 100, spans: 3, byName: { a: 2, b: 1 }, undecoded: 0 };
    const after = { requests: 5, bytes: 400, spans: 9, byName: { a: 4, b: 1, c: 4 }, undecoded: 1 };
    expect(otlpSince(before, after)).toEqual({
      requests: 3,
      bytes: 300,
      spans: 6,
      byName: { a: 2, c: 4 },
      undecoded: 1,
    });
  });

  it('gives the worker OpenTelemetry’s defaults: the bench’s OTEL_* and AMSFLOW_TRACING unset, the endpoint only when on', () => {
    const env = {
      PATH: '/bin',
      OTEL_TRACES_SAMPLER: 'always_off',
      AMSFLOW_TRACING: 'otlp',
      OTEL_SDK_DISABLED: 'x',
    };
    expect(tracingEnv(env)).toEqual({
      OTEL_TRACES_SAMPLER: undefined,
      AMSFLOW_TRACING: undefined,
      OTEL_SDK_DISABLED: undefined,
    });
    expect(tracingEnv({ PATH: '/bin' }, 'http://127.0.0.1:4318')).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    });
  });

  it('runs off, on, then on, off: a drift of the machine hits both sides', () => {
    expect(abbaOrder(1)).toEqual(['off', 'on']);
    expect(abbaOrder(2)).toEqual(['off', 'on', 'on', 'off']);
    expect(abbaOrder(3)).toEqual(['off', 'on', 'on', 'off', 'off', 'on']);
  });

  it('counts the SDK’s modules and Temporal’s OpenTelemetry interceptors, not the API the AI SDK imports', () => {
    const nm = '/p/node_modules';
    expect(OTEL_SDK_MODULE.test(`${nm}/@opentelemetry/sdk-trace-base/build/src/index.js`)).toBe(true);
    expect(OTEL_SDK_MODULE.test(`${nm}/@opentelemetry/api-logs/build/src/index.js`)).toBe(true);
    expect(OTEL_SDK_MODULE.test(`${nm}/@temporalio/interceptors-opentelemetry/lib/worker/index.js`)).toBe(
      true,
    );
    expect(OTEL_SDK_MODULE.test(`${nm}/@opentelemetry/api/build/src/index.js`)).toBe(false);
    expect(OTEL_SDK_MODULE.test(`${nm}/ai/dist/index.js`)).toBe(false);
  });

  it('averages each side’s runs’ own percentiles, beside the plain loop: a drift of the machine cancels from on − off', () => {
    // p50 = x, p95 = x + 100; the machine slows down 10 ms a run, tracing adds 3 ms.
    const echoes = (x: number) => [x - 2, x - 1, x, x + 100];
    const plain = [3, 3, 3, 5];
    const r = tracingFigures(
      [
        run('off', echoes(100), plain, { cpuMs: 400, modules: 0 }),
        run('on', echoes(93), plain, { cpuMs: 480, spans: 12, bytes: 18_000, modules: 250 }),
        run('on', echoes(83), plain, { cpuMs: 440, spans: 12, bytes: 17_000, modules: 250 }),
        run('off', echoes(70), plain, { cpuMs: 360, modules: 0 }),
      ],
      { messages: 4, spacingMs: 2000 },
    );
    expect(r.order).toEqual(['off', 'on', 'on', 'off']);
    expect(r.off).toMatchObject({
      runs: 2,
      echoes: 8,
      amsflowMs: { p50: 85, p95: 185 },
      plainMs: { p50: 3, p95: 5 },
      addedMs: { p50: 82, p95: 180 },
      ratio: { p50: 28.33, p95: 37 },
      runAddedP50Ms: [97, 67],
      workerCpuMsPerEcho: 95,
      spansPerEcho: 0,
      spansByName: {},
      otlpBytesPerEcho: 0,
      otlpRequests: 0,
      otelSdkModules: 0,
    });
    expect(r.on).toMatchObject({
      echoes: 8,
      addedMs: { p50: 85, p95: 183 },
      runAddedP50Ms: [90, 80],
      workerCpuMsPerEcho: 115,
      spansPerEcho: 3,
      spansByName: { 'RunActivity:pollUpdates': 1, 'RunWorkflow:onMessage': 2 },
      otlpBytesPerEcho: 4375,
      otlpRequests: 2,
      otelSdkModules: 250,
    });
    expect(r.costMs).toEqual({ p50: 3, p95: 3 });
    // Each side's runs are 30 ms apart: a standard error of √(450/2 + 50/2) ≈ 15.8 ms.
    expect(r.costSeMs).toEqual({ p50: 15.8, p95: 15.8 });
    expect(r.cpuMsPerEcho).toBe(20);
    expect(r.cpuSeMsPerEcho).toBe(7.1);
  });

  it('the standard error of a difference of means, from each side’s spread; none under two values a side', () => {
    expect(standardError([10, 14], [4, 6])).toBeCloseTo(Math.sqrt(8 / 2 + 2 / 2), 10);
    expect(standardError([5, 5, 5], [1, 1])).toBe(0);
    expect(standardError([10], [4, 6])).toBeNaN();
  });

  it('a probe not seen is null, not zero', () => {
    const r = tracingFigures([run('off', [50], [3], { cpuMs: 10, modules: null })], {
      messages: 1,
      spacingMs: 2000,
    });
    expect(r.off.otelSdkModules).toBeNull();
    expect(r.on.echoes).toBe(0);
  });

  it('the receiver counts what an exporter posts to /v1/traces, compressed or not, and refuses other paths', async () => {
    const sink = await startOtlpSink();
    const post = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
      new Promise<number>((done, fail) => {
        const req = request(
          `${sink.endpoint}${path}`,
          { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
          (res) => {
            res.resume();
            res.on('end', () => done(res.statusCode!));
          },
        );
        req.on('error', fail);
        req.end(body);
      });
    try {
      const plain = Buffer.from(exportBody(3));
      const zipped = gzipSync(Buffer.from(exportBody(1, 1)));
      expect(await post('/v1/traces', plain)).toBe(200);
      expect(await post('/v1/traces', zipped, { 'content-encoding': 'gzip' })).toBe(200);
      expect(await post('/v1/traces', Buffer.from('not json'))).toBe(200);
      expect(await post('/v1/metrics', plain)).toBe(404);
      expect(sink.counts()).toEqual({
        requests: 3,
        bytes: plain.length + zipped.length + 8,
        spans: 5,
        byName: { 'RunActivity:pollUpdates': 3, 'RunWorkflow:onMessage': 2 },
        undecoded: 1,
      });
    } finally {
      await sink.close();
    }
  });
});
