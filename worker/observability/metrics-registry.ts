/**
 * A small, pure metrics registry: counters, gauges and histograms with labels, kept in memory
 * and read back as samples by the Prometheus formatter. No I/O, no clock, no globals.
 */

/** Label names to values; keep the values bounded (agent keys, endpoints, outcomes). */
export type Labels = Readonly<Record<string, string>>;

/** What kind of metric a family is, as Prometheus names it. */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

/** One labelled series of a family. */
export interface Series {
  labels: Labels;
  /** Counter or gauge value; for a histogram, the sum of observations. */
  value: number;
  /** Histograms: cumulative counts per upper bound (same order as the family's buckets). */
  bucketCounts?: number[];
  /** Histograms: the number of observations. */
  count?: number;
}

/** A named metric with its help text and its series. */
export interface Family {
  name: string;
  help: string;
  kind: MetricKind;
  /** Histograms: the upper bounds, ascending (`+Inf` is implied). */
  buckets?: readonly number[];
  series: Series[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function key(labels: Labels): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

abstract class Metric {
  protected readonly byKey = new Map<string, Series>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  protected series(labels: Labels): Series {
    const k = key(labels);
    let s = this.byKey.get(k);
    if (!s) {
      for (const label of Object.keys(labels)) {
        if (!LABEL.test(label) || label.startsWith('__')) throw new Error(`Bad label name "${label}"`);
      }
      s = { labels: { ...labels }, value: 0 };
      this.initialise(s);
      this.byKey.set(k, s);
    }
    return s;
  }

  protected initialise(_series: Series): void {}

  /** Every series, in the order they were first used. */
  snapshot(): Series[] {
    return [...this.byKey.values()].map((s) => ({
      ...s,
      ...(s.bucketCounts ? { bucketCounts: [...s.bucketCounts] } : {}),
    }));
  }
}

/** A value that only goes up. */
export class Counter extends Metric {
  /** Adds `by` (default 1, never negative) to the series of `labels`. */
  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`Counter ${this.name} cannot go down (by ${by})`);
    this.series(labels).value += by;
  }

  /** The current value of the series of `labels` (0 when never used). */
  get(labels: Labels = {}): number {
    return this.byKey.get(key(labels))?.value ?? 0;
  }
}

/** A value that is set, up or down. */
export class Gauge extends Metric {
  set(labels: Labels, value: number): void {
    this.series(labels).value = value;
  }

  get(labels: Labels = {}): number | undefined {
    return this.byKey.get(key(labels))?.value;
  }
}

/** Observations counted into cumulative buckets, with their sum and count. */
export class Histogram extends Metric {
  constructor(
    name: string,
    help: string,
    readonly buckets: readonly number[],
  ) {
    super(name, help);
    if (buckets.length === 0 || buckets.some((b, i) => i > 0 && b <= buckets[i - 1])) {
      throw new Error(`Histogram ${name} needs ascending buckets`);
    }
  }

  protected override initialise(series: Series): void {
    series.bucketCounts = this.buckets.map(() => 0);
    series.count = 0;
  }

  observe(labels: Labels, value: number): void {
    const s = this.series(labels);
    s.value += value;
    s.count! += 1;
    this.buckets.forEach((bound, i) => {
      if (value <= bound) s.bucketCounts![i] += 1;
    });
  }
}

/** The metrics of one process, by name. */
export class MetricsRegistry {
  private readonly metrics = new Map<string, { kind: MetricKind; metric: Counter | Gauge | Histogram }>();

  counter(name: string, help: string): Counter {
    return this.add(name, 'counter', () => new Counter(name, help)) as Counter;
  }

  gauge(name: string, help: string): Gauge {
    return this.add(name, 'gauge', () => new Gauge(name, help)) as Gauge;
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.add(name, 'histogram', () => new Histogram(name, help, buckets)) as Histogram;
  }

  /** Every family with its series, in registration order. */
  collect(): Family[] {
    return [...this.metrics.values()].map(({ kind, metric }) => ({
      name: metric.name,
      help: metric.help,
      kind,
      ...(metric instanceof Histogram ? { buckets: metric.buckets } : {}),
      series: metric.snapshot(),
    }));
  }

  private add(name: string, kind: MetricKind, create: () => Counter | Gauge | Histogram) {
    const known = this.metrics.get(name);
    if (known) {
      if (known.kind !== kind) throw new Error(`Metric ${name} is a ${known.kind}, not a ${kind}`);
      return known.metric;
    }
    if (!NAME.test(name)) throw new Error(`Bad metric name "${name}"`);
    const metric = create();
    this.metrics.set(name, { kind, metric });
    return metric;
  }
}
