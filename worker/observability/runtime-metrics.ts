/**
 * The Temporal runtime's own metrics (`temporal_*`: requests, pollers, slots, task latencies), in
 * amsflow's registry: the Runtime records them into the SDK's {@link MetricsBuffer} (runtime.ts),
 * and {@link RuntimeMetrics} drains it into the registry on every scrape and every second, so
 * that `/metrics` serves one registry.
 *
 * The names are those the core's Prometheus exporter gave them (amsflow served its text until
 * then, and the alert rules and the dashboard name them): the core's `temporal_` prefix, `_total`
 * after every counter's name, histograms in milliseconds with the exporter's bucket bounds
 * ({@link coreBuckets}), the update's attributes (`service_name` among them) as labels.
 */
import type { Metric, MetricTags } from '@temporalio/common';
import type { BufferedMetricUpdate, MetricsBuffer } from '@temporalio/worker';
import type { Labels, MetricsRegistry } from './metrics-registry';

/**
 * The core's default histogram bounds in milliseconds, by metric name without its `temporal_`
 * prefix (`default_buckets_for` in the core's common/src/telemetry/metrics.rs; a test reads them
 * there); any other histogram has {@link DEFAULT_BUCKETS}.
 */
const CORE_BUCKETS: Readonly<Record<string, readonly number[]>> = {
  workflow_endtoend_latency: [
    100, 500, 1000, 1500, 2000, 5000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000,
    30_600_000, 86_400_000,
  ],
  workflow_task_execution_latency: [1, 10, 20, 50, 100, 200, 500, 1000],
  workflow_task_replay_latency: [1, 10, 20, 50, 100, 200, 500, 1000],
  activity_execution_latency: [50, 100, 500, 1000, 5000, 10_000, 60_000],
  workflow_task_schedule_to_start_latency: [100, 500, 1000, 5000, 10_000, 100_000, 1_000_000],
  activity_schedule_to_start_latency: [100, 500, 1000, 5000, 10_000, 100_000, 1_000_000],
};
const DEFAULT_BUCKETS: readonly number[] = [50, 100, 500, 1000, 2500, 10_000];

/** The bucket bounds the core's Prometheus exporter gave the histogram `name` (its name as exported). */
export function coreBuckets(name: string): readonly number[] {
  return CORE_BUCKETS[name.replace(/^temporal_/, '')] ?? DEFAULT_BUCKETS;
}

/** The name the core's Prometheus exporter gave a metric (with `countersTotalSuffix`). */
export function exportedName(metric: Pick<Metric, 'name' | 'kind'>): string {
  return metric.kind === 'counter' ? `${metric.name}_total` : metric.name;
}

/** An update's attributes as labels, names sorted (as the exporter wrote them). */
function labelsOf(attributes: MetricTags): Labels {
  const out: Record<string, string> = {};
  for (const name of Object.keys(attributes).sort()) out[name] = String(attributes[name]);
  return out;
}

/**
 * Applies the runtime's metric updates to `registry`: a counter's value is a delta (`inc`), a
 * gauge's the value itself (`set`), an up-down counter's a signed delta (summed into a gauge), a
 * histogram's one observation (`observe`, into {@link coreBuckets}). An update the registry refuses
 * (a name it holds as another kind) is skipped and its name returned; the others still apply.
 */
export function applyRuntimeUpdates(
  registry: MetricsRegistry,
  updates: Iterable<BufferedMetricUpdate>,
): string[] {
  const skipped: string[] = [];
  for (const { metric, value, attributes } of updates) {
    const name = exportedName(metric);
    const help = metric.description ?? name;
    const labels = labelsOf(attributes);
    try {
      switch (metric.kind) {
        case 'counter':
          registry.counter(name, help).inc(labels, value);
          break;
        case 'gauge':
          registry.gauge(name, help).set(labels, value);
          break;
        case 'up-down-counter': {
          const gauge = registry.gauge(name, help);
          gauge.set(labels, (gauge.get(labels) ?? 0) + value);
          break;
        }
        case 'histogram':
          registry.histogram(name, help, coreBuckets(name)).observe(labels, value);
          break;
      }
    } catch {
      skipped.push(name);
    }
  }
  return skipped;
}

/** Options of {@link RuntimeMetrics}. */
export interface RuntimeMetricsOptions {
  buffer: MetricsBuffer;
  registry: MetricsRegistry;
  /** Between two drains besides the scrapes' (default 1000 ms). */
  intervalMs?: number;
  /** Told once per name of the updates the registry refused. */
  onSkipped?: (name: string) => void;
}

/** Drains the Runtime's metrics buffer into amsflow's registry, on {@link drain} and on a timer. */
export class RuntimeMetrics {
  private timer?: NodeJS.Timeout;
  private readonly told = new Set<string>();

  constructor(private readonly options: RuntimeMetricsOptions) {}

  /** Starts draining every `intervalMs` (the timer keeps no process alive). */
  start(): this {
    this.timer ??= setInterval(() => this.drain(), this.options.intervalMs ?? 1000).unref();
    return this;
  }

  /** Moves every update buffered since the last drain into the registry. */
  drain(): void {
    for (const name of applyRuntimeUpdates(this.options.registry, this.options.buffer.retrieveUpdates())) {
      if (this.told.has(name)) continue;
      this.told.add(name);
      this.options.onSkipped?.(name);
    }
  }

  /** Stops the timer, after a last drain. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.drain();
  }
}
