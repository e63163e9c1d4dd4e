/**
 * The worker side of workflow metrics. Workflow code emits through the SDK's `metricMeter`; the
 * SDK's own sink hands each value to the Temporal Runtime's meter (the sink's name is reserved,
 * so it cannot be replaced). This meter sits in front of the Runtime's: it records amsflow's
 * workflow metrics (`amsflow_*`, see protocol/observability.ts) in amsflow's registry and passes every
 * other metric through unchanged. The SDK makes those sink calls outside replay only.
 */
import type {
  MetricCounter,
  MetricGauge,
  MetricHistogram,
  MetricMeter,
  MetricTags,
  NumericMetricValueType,
} from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { WORKFLOW_METRICS as M } from '../../protocol/observability';
import type { AmsflowMetrics } from './amsflow-metrics';
import type { Counter, Labels } from './metrics-registry';

/** The label values amsflow keeps of a workflow metric's tags (the rest, e.g. workflowType, go). */
const KEPT = ['agent', 'endpoint', 'result', 'decision', 'workflow', 'signal', 'status', 'type'];

function labels(tags: MetricTags): Labels {
  const out: Record<string, string> = {};
  for (const name of KEPT) if (tags[name] !== undefined) out[name] = String(tags[name]);
  return out;
}

/** Where amsflow's workflow metrics go (the latest Observability of the process). */
interface Target {
  metrics?: AmsflowMetrics;
}

class AmsflowMeter implements MetricMeter {
  constructor(
    private readonly parent: MetricMeter,
    readonly target: Target,
    private readonly tags: MetricTags = {},
  ) {}

  withTags(tags: MetricTags): MetricMeter {
    return new AmsflowMeter(this.parent.withTags(tags), this.target, { ...this.tags, ...tags });
  }

  createCounter(name: string, unit?: string, description?: string): MetricCounter {
    if (!name.startsWith('amsflow_')) return this.parent.createCounter(name, unit, description);
    const record = (value: number, extra: MetricTags = {}) => {
      const m = this.target.metrics;
      if (!m) return;
      const counters: Record<string, Counter | undefined> = {
        [M.handlerStarts]: m.handlerStarts,
        [M.remindersFired]: m.remindersFired,
        [M.approvals]: m.approvals,
        [M.droppedSignals]: m.droppedSignals,
        [M.agentRefusals]: m.agentRefusals,
        [M.sendFailures]: m.sendFailures,
      };
      const counter = counters[name];
      if (counter) counter.inc(labels({ ...this.tags, ...extra }), value);
      else m.workflowMetricsDropped.inc({ name });
    };
    return this.metric('counter', 'int', name, unit, description, record) as MetricCounter;
  }

  createGauge(name: string, valueType: NumericMetricValueType = 'int', unit?: string, description?: string) {
    if (!name.startsWith('amsflow_')) return this.parent.createGauge(name, valueType, unit, description);
    const record = (value: number, extra: MetricTags = {}) => {
      const m = this.target.metrics;
      if (!m) return;
      const gauge =
        name === M.outboxLength
          ? m.outboxLength
          : name === M.windowUtilisation
            ? m.windowUtilisation
            : undefined;
      if (gauge) gauge.set(labels({ ...this.tags, ...extra }), value);
      else m.workflowMetricsDropped.inc({ name });
    };
    return this.metric('gauge', valueType, name, unit, description, record) as MetricGauge;
  }

  createHistogram(
    name: string,
    valueType: NumericMetricValueType = 'int',
    unit?: string,
    description?: string,
  ) {
    if (!name.startsWith('amsflow_')) return this.parent.createHistogram(name, valueType, unit, description);
    const record = () => this.target.metrics?.workflowMetricsDropped.inc({ name });
    return this.metric('histogram', valueType, name, unit, description, record) as MetricHistogram;
  }

  private metric(
    kind: 'counter' | 'gauge' | 'histogram',
    valueType: NumericMetricValueType,
    name: string,
    unit: string | undefined,
    description: string | undefined,
    record: (value: number, tags?: MetricTags) => void,
  ) {
    const make = (base: MetricTags): unknown => ({
      name,
      unit,
      description,
      kind,
      valueType,
      add: (v: number, t?: MetricTags) => record(v, { ...base, ...t }),
      set: (v: number, t?: MetricTags) => record(v, { ...base, ...t }),
      record: (v: number, t?: MetricTags) => record(v, { ...base, ...t }),
      withTags: (t: MetricTags) => make({ ...base, ...t }),
    });
    return make({});
  }
}

/**
 * Puts amsflow's meter in front of the Runtime's (once per process; later calls retarget it), so
 * that workers created afterwards send amsflow's workflow metrics to `metrics`.
 */
export function routeWorkflowMetrics(metrics: AmsflowMetrics): void {
  const runtime = Runtime.instance();
  const current = runtime.metricMeter;
  if (current instanceof AmsflowMeter) {
    current.target.metrics = metrics;
    return;
  }
  Object.defineProperty(runtime, 'metricMeter', {
    value: new AmsflowMeter(current, { metrics }),
    configurable: true,
    writable: true,
  });
}
