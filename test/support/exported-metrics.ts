/**
 * The metric names a worker exports, for the tests of what queries them (the alert rules, the
 * Grafana dashboard under deploy/):
 * - a live scrape of `/metrics` of a worker process (exported-metrics-worker.ts: a process, as a
 *   worker's Temporal Runtime is one per process), whose registry holds amsflow's metrics and the
 *   runtime's, drained from its metrics buffer. Before the scrape, amsflow's recording code runs
 *   once down each of its paths, so
 *   that the scrape shows each family's labels on samples: the activities against a simulator of
 *   their own (its faults for the 429s and the ambiguous sends) through the worker's activity
 *   interceptors, the workflows' metric hooks in a real workflow on the shared dev server, the
 *   agent health check. amsflow declares every family before its first sample, so the names of
 *   those no path reaches are in the scrape too;
 * - the metrics the installed Temporal core declares, named as `/metrics` names them: the
 *   runtime's show in a scrape only once they happen (a failed workflow task, a throttled
 *   request), so a scrape cannot list them all;
 * - a small reader of PromQL: the metric selectors of an expression, with the labels each is
 *   matched on and grouped by.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
/** The Temporal core the worker runs, whose source ships in @temporalio/core-bridge. */
const CORE = join(root, 'node_modules', '@temporalio', 'core-bridge', 'sdk-core', 'crates');
const CORE_METRICS_SOURCES = [
  'sdk-core/src/telemetry/metrics.rs',
  'client/src/metrics.rs',
  'common/src/telemetry/metrics.rs',
];
/** A worker process that records down every path of amsflow's and serves `/metrics` (prints its URL). */
const WORKER_CHILD = join(root, 'test', 'support', 'exported-metrics-worker.ts');
/** Series Prometheus makes itself for every target it scrapes (their labels are the target's). */
export const PROMETHEUS_OWN = new Set(['up']);
/** Labels Prometheus puts on every series it scrapes (the target's). */
const TARGET_LABELS = new Set(['job', 'instance']);

export type Kind = 'counter' | 'gauge' | 'histogram';

// ---- PromQL ----

/** A metric selector in PromQL: the metric's name, its label matchers, the labels it is grouped by. */
export interface Selector {
  name: string;
  matchers: { label: string; op: string; value: string }[];
  /** Labels of the `by (...)` and `without (...)` clauses of the aggregations around it. */
  grouping: string[];
}

const TOKEN =
  /\s+|"(?:[^"\\]|\\.)*"|\{[^}]*\}|\[[^\]]*\]|[A-Za-z_:][\w:]*|\d+(?:\.\d+)?(?:e[+-]?\d+)?[smhdwy]?|==|!=|>=|<=|[-+*/%^<>(),]/y;
/** Words that are not metric names: binary and set operators, modifiers, the number literals. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'atan2', 'Inf', 'NaN', 'inf', 'nan']);
/** Words followed by a list of label names in parentheses. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
/** Of those, the aggregations' (the others match the two sides of a binary operator). */
const GROUPINGS = new Set(['by', 'without']);

function tokens(expr: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expr.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expr);
    if (!m) throw new Error(`cannot read PromQL at "${expr.slice(at, at + 20)}" in ${expr}`);
    if (m[0].trim()) out.push(m[0]);
  }
  return out;
}

/** Each parenthesis's partner, by token index (both ways). */
function partners(list: string[], expr: string): Map<number, number> {
  const out = new Map<number, number>();
  const open: number[] = [];
  list.forEach((token, i) => {
    if (token === '(') open.push(i);
    else if (token === ')') {
      const from = open.pop();
      if (from === undefined) throw new Error(`unbalanced ")" in ${expr}`);
      out.set(from, i).set(i, from);
    }
  });
  if (open.length) throw new Error(`unbalanced "(" in ${expr}`);
  return out;
}

/** The metric selectors of a PromQL expression (a small tokenizer: enough for rules and panels). */
export function selectors(expr: string): Selector[] {
  const list = tokens(expr);
  const partner = partners(list, expr);
  // The token ranges each `by`/`without` clause applies to: its aggregation's argument, which
  // follows the clause (`sum by (a) (x)`) or precedes it (`sum (x) by (a)`).
  const groups: { from: number; to: number; labels: string[] }[] = [];
  for (let i = 0; i < list.length; i++) {
    if (!LABEL_LISTS.has(list[i]) || list[i + 1] !== '(') continue;
    const end = partner.get(i + 1)!;
    const labels = list.slice(i + 2, end).filter((t) => t !== ',');
    if (GROUPINGS.has(list[i])) {
      if (list[i - 1] === ')') groups.push({ from: partner.get(i - 1)!, to: i - 1, labels });
      else if (list[end + 1] === '(') groups.push({ from: end + 1, to: partner.get(end + 1)!, labels });
      else throw new Error(`cannot tell what "${list[i]}" applies to in ${expr}`);
    }
    i = end;
  }
  const found: Selector[] = [];
  for (let i = 0; i < list.length; i++) {
    const token = list[i];
    if (!/^[A-Za-z_:]/.test(token) || KEYWORDS.has(token)) continue;
    if (LABEL_LISTS.has(token)) {
      if (list[i + 1] === '(') i = partner.get(i + 1)!;
      continue;
    }
    // A function, or an aggregation (`sum(...)`, `sum by (...) (...)`).
    if (list[i + 1] === '(' || LABEL_LISTS.has(list[i + 1])) continue;
    const block = list[i + 1]?.startsWith('{') ? list[i + 1] : '';
    const matchers = [...block.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => ({
      label: m[1],
      op: m[2],
      value: m[3],
    }));
    const grouping = [...new Set(groups.filter((g) => g.from < i && i < g.to).flatMap((g) => g.labels))];
    found.push({ name: token, matchers, grouping });
  }
  return found;
}

/** The literal label values a matcher names (a regex's alternatives). */
export const matcherValues = (m: Selector['matchers'][number]): string[] =>
  m.op === '=~' || m.op === '!~' ? m.value.split('|') : [m.value];

// ---- Prometheus text ----

/** The sample names a family of `kind` has in the exposition format. */
export function sampleNames(family: string, kind: string): string[] {
  return kind === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => family + s) : [family];
}

/** Families (`# TYPE` lines) of a scrape, by name. */
export function families(scrape: string): Map<string, string> {
  return new Map([...scrape.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => [m[1], m[2]]));
}

/** The label names on the samples of a scrape, by sample name (names without samples absent). */
export function sampleLabels(scrape: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of scrape.matchAll(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+(?: \d+)?$/gm)) {
    const labels = out.get(m[1]) ?? new Set<string>();
    for (const l of (m[2] ?? '').matchAll(/(\w+)="(?:[^"\\]|\\.)*"/g)) labels.add(l[1]);
    out.set(m[1], labels);
  }
  return out;
}

// ---- The Temporal core ----

/** What the installed Temporal core declares. */
export interface CoreCatalogue {
  /** Its metrics, named as `/metrics` names them, with their kinds. */
  families: Map<string, Kind>;
  /** The label names it writes (`le` aside, which the format adds to a histogram's buckets). */
  labels: Set<string>;
  /** The source read. */
  source: string;
}

/**
 * The metrics the installed Temporal core declares, named as a worker's `/metrics` names them
 * (worker/observability/runtime-metrics.ts): `temporal_` before the name, `_total` after a
 * counter's, an up-down counter a gauge. Read from the core's source, where each is `<kind>(MetricParameters { name: ... })`,
 * and its label names are `const KEY_...: &str = "..."` or `MetricKeyValue::new("...", ...)`.
 */
export function coreCatalogue(): CoreCatalogue {
  const paths = CORE_METRICS_SOURCES.map((p) => join(CORE, p));
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length)
    throw new Error(`the Temporal core's metrics source is not where it was: ${missing.join(', ')}`);
  const source = paths.map((p) => readFileSync(p, 'utf8')).join('\n');
  const constants = new Map(
    [...source.matchAll(/\b(?:const|static) ([A-Z0-9_]+): &str =\s*"(\w+)";/g)].map((m) => [m[1], m[2]]),
  );
  const out = new Map<string, Kind>();
  for (const m of source.matchAll(
    /\b(\w+)\s*\(\s*MetricParameters\s*\{\s*name:\s*(?:"(\w+)"|([A-Z0-9_]+))\.into\(\)/g,
  )) {
    const name = m[2] ?? constants.get(m[3]);
    if (!name) throw new Error(`the core's metric ${m[3]} has no name in its source`);
    const kind: Kind | undefined = m[1].startsWith('counter')
      ? 'counter'
      : m[1].startsWith('histogram')
        ? 'histogram'
        : m[1].startsWith('gauge') || m[1].startsWith('up_down_counter')
          ? 'gauge'
          : undefined;
    if (kind) out.set(`temporal_${name}${kind === 'counter' ? '_total' : ''}`, kind);
  }
  const labels = new Set([
    ...[...constants].filter(([name]) => name.startsWith('KEY_')).map(([, value]) => value),
    ...[...source.matchAll(/MetricKeyValue::new\(\s*"(\w+)"/g)].map((m) => m[1]),
  ]);
  return { families: out, labels, source };
}

// ---- The live scrape ----

/** A worker process serving `/metrics` (exported-metrics-worker.ts), once its recording code ran. */
export interface MetricsWorker {
  /** `http://host:port` of its endpoint. */
  url: string;
  pid: number;
  /** The agent its recording code ran for. */
  agent: string;
  /** Ends the process (closes its stdin) and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts a worker process like exported-metrics-worker.ts describes (seconds: a workflow runs). */
export function startMetricsWorker(): Promise<MetricsWorker> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', WORKER_CHILD], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = () => {
    child.stdin.end();
    return exited;
  };
  return new Promise<MetricsWorker>((resolveWorker, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const { url, agent } = JSON.parse(out.split('\n')[0]) as { url: string; agent: string };
      resolveWorker({ url, agent, pid: child.pid!, stop });
    });
    child.once('exit', (code) => reject(new Error(`the metrics worker exited (${code}) before reporting`)));
  });
}

/** A scrape of `/metrics` as a worker serves it, and what it tells. */
export interface ExportedMetrics {
  /** The scrape: amsflow's families and the Temporal runtime's, of one registry. */
  scrape: string;
  /** Its families (`# TYPE`), by name. */
  scraped: Map<string, string>;
  /** The label names on its samples, by sample name (amsflow's recording code ran once down each path). */
  labels: Map<string, Set<string>>;
  /** What the installed Temporal core declares. */
  core: CoreCatalogue;
  /** The sample names a query may name: the scrape's, the core's and Prometheus' own. */
  served: Set<string>;
  /** `<where>: <name>` for each selector naming no metric a worker serves. */
  unknownMetrics(uses: (Selector & { where: string })[]): string[];
  /**
   * `<where>: <name> has no label <label>` for each label a selector matches on or is grouped by
   * that the metric does not carry (Prometheus' `job` and `instance` aside, which it adds to every
   * series): on its samples in the scrape; for the Temporal runtime's
   * (most have none in a scrape), among the label names its core writes and those on the
   * runtime's samples in the scrape (`service_name`; `le` on a histogram's buckets); an amsflow metric with
   * no samples in the scrape is reported too (nothing to check it against).
   */
  unknownLabels(uses: (Selector & { where: string })[]): string[];
}

/** The metrics a worker exports, from a live `/metrics` (a few seconds: see the file's comment). */
export async function exportedMetrics(): Promise<ExportedMetrics> {
  const worker = await startMetricsWorker();
  let scrape: string;
  try {
    scrape = await (await fetch(`${worker.url}/metrics`)).text();
  } finally {
    await worker.stop();
  }

  const scraped = families(scrape);
  const labels = sampleLabels(scrape);
  const core = coreCatalogue();
  const served = new Set<string>(PROMETHEUS_OWN);
  for (const [family, kind] of [...scraped, ...core.families])
    for (const sample of sampleNames(family, kind)) served.add(sample);
  // The Temporal runtime's label names: those its source writes, and those its samples carry
  // besides (`service_name`, which the core adds to every one).
  const runtimeLabels = new Set([
    ...core.labels,
    ...[...labels].filter(([name]) => name.startsWith('temporal_')).flatMap(([, set]) => [...set]),
  ]);

  return {
    scrape,
    scraped,
    labels,
    core,
    served,
    unknownMetrics: (uses) => uses.filter((s) => !served.has(s.name)).map((s) => `${s.where}: ${s.name}`),
    unknownLabels: (uses) =>
      uses.flatMap((s) => {
        if (PROMETHEUS_OWN.has(s.name) || !served.has(s.name)) return [];
        const used = [...new Set([...s.matchers.map((m) => m.label), ...s.grouping])].filter(
          (l) => l !== '__name__' && !TARGET_LABELS.has(l),
        );
        const seen = labels.get(s.name);
        if (seen)
          return used
            .filter((l) => !seen.has(l))
            .map(
              (l) =>
                `${s.where}: ${s.name} has no label ${l} (its samples have ${[...seen].sort().join(', ')})`,
            );
        if (s.name.startsWith('temporal_'))
          return used
            .filter((l) => !runtimeLabels.has(l) && !(l === 'le' && s.name.endsWith('_bucket')))
            .map(
              (l) => `${s.where}: ${s.name} has no label ${l} (the Temporal runtime writes no such label)`,
            );
        return used.length
          ? [`${s.where}: ${s.name} has no samples in the scrape to check ${used.join(', ')} against`]
          : [];
      }),
  };
}
