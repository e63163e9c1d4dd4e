/**
 * The Temporal runtime's metrics in amsflow's registry (worker/observability/runtime-metrics.ts):
 * - the translation of the runtime's buffered updates, driven with updates as the SDK's buffer
 *   hands them over (no server): counters add their deltas, gauges take their value, histograms
 *   count into the bucket bounds of the core's Prometheus exporter (read from the core's source);
 * - a real worker process (the Runtime is one per process) with a connection and a worker on the
 *   shared dev server: its `/metrics` serves the runtime's metrics under the names, labels and
 *   bucket bounds the core's exporter gave them (the alert rules and the dashboard name them),
 *   amsflow's workflow metrics once, and the process listens on no port but that endpoint's.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Metric, MetricTags } from '@temporalio/common';
import type { BufferedMetricUpdate } from '@temporalio/worker';
import { MetricsRegistry } from '../../../worker/observability/metrics-registry';
import { formatPrometheus } from '../../../worker/observability/prometheus-format';
import { applyRuntimeUpdates, coreBuckets } from '../../../worker/observability/runtime-metrics';
import { LOOPBACK } from '../../../worker/private-loopback';
import {
  families,
  sampleLabels,
  startMetricsWorker,
  type MetricsWorker,
} from '../../support/exported-metrics';
import { listeners } from '../../support/listening-ports';

const SERVICE = { service_name: 'temporal-core-sdk' };

function metric(name: string, kind: Metric['kind'], description?: string): Metric {
  return { name, kind, valueType: 'int', ...(description ? { description } : {}) };
}

/** The text `/metrics` would serve for `updates` applied to a fresh registry. */
function served(...updates: [Metric, number, MetricTags][]): string {
  const registry = new MetricsRegistry();
  const list: BufferedMetricUpdate[] = updates.map(([m, value, attributes]) => ({
    metric: m,
    value,
    attributes,
  }));
  expect(applyRuntimeUpdates(registry, list)).toEqual([]);
  return formatPrometheus(registry.collect());
}

describe("the runtime's buffered updates, in the registry", () => {
  it('counters add their deltas, under the name with _total, one series per attribute set', () => {
    const request = metric('temporal_request', 'counter', 'Count of client request successes by rpc name');
    const namespaced = { operation: 'DescribeNamespace', namespace: 'default', ...SERVICE };
    expect(
      served(
        [request, 2, { operation: 'GetSystemInfo', ...SERVICE }],
        [request, 1, namespaced],
        [request, 3, { operation: 'GetSystemInfo', ...SERVICE }],
      ),
    ).toBe(
      [
        '# HELP temporal_request_total Count of client request successes by rpc name',
        '# TYPE temporal_request_total counter',
        'temporal_request_total{operation="GetSystemInfo",service_name="temporal-core-sdk"} 5',
        'temporal_request_total{namespace="default",operation="DescribeNamespace",service_name="temporal-core-sdk"} 1',
        '',
      ].join('\n'),
    );
  });

  it('gauges take the last value; up-down counters sum their signed deltas', () => {
    const pollers = metric(
      'temporal_num_pollers',
      'gauge',
      'Current number of active pollers per queue type',
    );
    const inFlight = metric('temporal_in_flight', 'up-down-counter');
    const labels = { poller_type: 'workflow_task', ...SERVICE };
    expect(served([pollers, 8, labels], [pollers, 2, labels], [inFlight, 3, {}], [inFlight, -1, {}])).toBe(
      [
        '# HELP temporal_num_pollers Current number of active pollers per queue type',
        '# TYPE temporal_num_pollers gauge',
        'temporal_num_pollers{poller_type="workflow_task",service_name="temporal-core-sdk"} 2',
        '# HELP temporal_in_flight temporal_in_flight',
        '# TYPE temporal_in_flight gauge',
        'temporal_in_flight 2',
        '',
      ].join('\n'),
    );
  });

  it("histograms count each observation into the exporter's buckets, cumulative, with sum and count", () => {
    const latency = metric('temporal_workflow_task_schedule_to_start_latency', 'histogram', 'Latencies');
    const text = served([latency, 50, SERVICE], [latency, 150, SERVICE], [latency, 20_000, SERVICE]);
    const buckets = [...text.matchAll(/_bucket\{service_name="temporal-core-sdk",le="([^"]+)"\} (\d+)/g)].map(
      (m) => [m[1], Number(m[2])],
    );
    expect(buckets).toEqual([
      ['100', 1],
      ['500', 2],
      ['1000', 2],
      ['5000', 2],
      ['10000', 2],
      ['100000', 3],
      ['1000000', 3],
      ['+Inf', 3],
    ]);
    expect(text).toMatch(
      /^temporal_workflow_task_schedule_to_start_latency_sum\{service_name="temporal-core-sdk"\} 20200$/m,
    );
    expect(text).toMatch(
      /^temporal_workflow_task_schedule_to_start_latency_count\{service_name="temporal-core-sdk"\} 3$/m,
    );
  });

  it('an update the registry refuses is skipped and named; the others apply', () => {
    const registry = new MetricsRegistry();
    registry.gauge('temporal_clash_total', 'a gauge of ours');
    const skipped = applyRuntimeUpdates(registry, [
      { metric: metric('temporal_clash', 'counter'), value: 1, attributes: {} },
      { metric: metric('temporal_request', 'counter'), value: 1, attributes: {} },
    ]);
    expect(skipped).toEqual(['temporal_clash_total']);
    expect(formatPrometheus(registry.collect())).toMatch(/^temporal_request_total 1$/m);
  });

  it("has the core's bucket bounds for each histogram it names, and its default for the others", () => {
    const source = readFileSync(
      join(
        __dirname,
        '../../../node_modules/@temporalio/core-bridge/sdk-core/crates/common/src/telemetry/metrics.rs',
      ),
      'utf8',
    );
    const names = new Map(
      [...source.matchAll(/pub const ([A-Z0-9_]+): &str =\s*"(\w+)";/g)].map((m) => [m[1], m[2]]),
    );
    const macro = source.slice(source.indexOf('define_latency_buckets!('));
    const cases = [...macro.matchAll(/\(\s*([A-Z0-9_|\s]+|_),\s*\w+,\s*\w+,\s*\[([^\]]*)\]\s*\)/g)];
    expect(cases.length).toBeGreaterThanOrEqual(5);
    for (const [, patterns, list] of cases) {
      const bounds = list
        .replace(/\/\/.*$/gm, '')
        .split(',')
        .map((b) => b.trim().replace(/_/g, ''))
        .filter(Boolean)
        .map(Number);
      const metricNames = patterns.trim() === '_' ? ['some_histogram_of_another_name'] : patterns.split('|');
      for (const constant of metricNames) {
        const name = patterns.trim() === '_' ? constant : names.get(constant.trim());
        expect({ name, bounds: coreBuckets(`temporal_${name}`) }).toEqual({ name, bounds });
      }
    }
  });
});

/** The ports `pid` listens on, on any address (the old exporter was on a 127.x.y.z of its own). */
const listeningPorts = (pid: number): number[] =>
  [...new Set(listeners(pid).map((l) => l.port))].sort((x, y) => x - y);

const linuxIt = process.platform === 'linux' ? it : it.skip;

describe("a worker process's /metrics, with the Temporal runtime's metrics in its registry", () => {
  let worker: MetricsWorker;
  let scrape: string;
  beforeAll(async () => {
    worker = await startMetricsWorker();
    scrape = await (await fetch(`${worker.url}/metrics`)).text();
  }, 120_000);
  afterAll(() => worker?.stop());

  it('serves them under the names, labels and bucket bounds the alerts and the dashboard know', () => {
    const kinds = families(scrape);
    expect({
      request: kinds.get('temporal_request_total'),
      pollers: kinds.get('temporal_num_pollers'),
      slots: kinds.get('temporal_worker_task_slots_available'),
      scheduleToStart: kinds.get('temporal_workflow_task_schedule_to_start_latency'),
    }).toEqual({ request: 'counter', pollers: 'gauge', slots: 'gauge', scheduleToStart: 'histogram' });
    expect(scrape).toMatch(/^# HELP temporal_request_total Count of client request successes by rpc name$/m);
    // The connection's first request, as the exporter showed it.
    expect(scrape).toMatch(
      /^temporal_request_total\{operation="GetSystemInfo",service_name="temporal-core-sdk"\} [1-9]\d*$/m,
    );

    const labels = sampleLabels(scrape);
    const names = (sample: string) => [...(labels.get(sample) ?? [])].sort();
    expect(names('temporal_num_pollers')).toEqual(['namespace', 'poller_type', 'service_name', 'task_queue']);
    expect(names('temporal_worker_task_slots_available')).toEqual([
      'namespace',
      'service_name',
      'task_queue',
      'worker_type',
    ]);
    const series = /^temporal_workflow_task_schedule_to_start_latency_bucket\{([^}]*),le="[^"]+"\}/m.exec(
      scrape,
    )![1];
    const le = [
      ...scrape.matchAll(
        new RegExp(
          `^temporal_workflow_task_schedule_to_start_latency_bucket\\{${series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},le="([^"]+)"\\}`,
          'gm',
        ),
      ),
    ].map((m) => m[1]);
    expect(le).toEqual(['100', '500', '1000', '5000', '10000', '100000', '1000000', '+Inf']);
  });

  it("serves amsflow's workflow metrics once: in amsflow's families, not again through the runtime", () => {
    const types = [...scrape.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    expect(types.filter((name, i) => types.indexOf(name) !== i)).toEqual([]);
    expect(types.filter((name) => name.includes('amsflow') && !name.startsWith('amsflow_'))).toEqual([]);
    // The workflow called each hook once.
    const agent = `agent="${worker.agent}"`;
    expect(scrape).toMatch(new RegExp(`^amsflow_handler_starts_total\\{${agent}\\} 1$`, 'm'));
    expect(scrape).toMatch(new RegExp(`^amsflow_outbox_queue_length\\{${agent}\\} 2$`, 'm'));
  });

  linuxIt('listens on no port but its endpoint (the runtime has no exporter of its own)', async () => {
    // The check finds a listener: this process's own, for a moment.
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, LOOPBACK, () => done()));
    try {
      const { port } = probe.address() as { port: number };
      expect(listeningPorts(process.pid)).toContain(port);
    } finally {
      await new Promise((done) => probe.close(done));
    }
    expect(listeningPorts(worker.pid)).toEqual([Number(new URL(worker.url).port)]);
  });
});
