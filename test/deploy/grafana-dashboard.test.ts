/**
 * The Grafana dashboard (deploy/grafana/amsflow-dashboard.json) queries only what a worker
 * exports: every metric a query names (panel targets, rows' panels included, and the templating
 * variables' `label_values(...)`) is on a live `/metrics` of the real endpoint or among the metrics
 * the installed Temporal core declares, and every label a query matches on, groups by, asks the
 * values of or shows in a legend is on that metric's samples in the scrape (amsflow's recording code
 * runs once down each path first) or, for the runtime's, among the labels its core writes (see
 * test/support/exported-metrics.ts). Grafana's variables are substituted as Grafana sends them
 * (`$__rate_interval` a duration, `$agent` its "All" value). The JSON is a dashboard Grafana
 * imports: panel ids unique, every query on the datasource variable, variables defined before use,
 * a multi-value variable matched as a regex, panels inside the 24 columns and not overlapping,
 * latency in the unit its histogram counts in. The checks can fail: a copy with a metric, a label,
 * a legend, an id or a datasource broken on purpose is reported, naming where.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exportedMetrics, selectors, type ExportedMetrics, type Selector } from '../support/exported-metrics';

jest.setTimeout(120_000);

const FILE = join(resolve(__dirname, '..', '..'), 'deploy', 'grafana', 'amsflow-dashboard.json');

interface DatasourceRef {
  type?: string;
  uid?: string;
}
interface Target {
  refId?: string;
  expr?: string;
  legendFormat?: string;
  datasource?: DatasourceRef;
}
interface Panel {
  id?: unknown;
  type?: string;
  title?: string;
  datasource?: DatasourceRef | null;
  targets?: Target[];
  /** A row's panels (a collapsed row keeps them here). */
  panels?: Panel[];
  gridPos?: { h: number; w: number; x: number; y: number };
  fieldConfig?: { defaults?: { unit?: string } };
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
  datasource?: DatasourceRef | null;
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string | null;
}
interface Dashboard {
  title?: string;
  uid?: string;
  schemaVersion?: number;
  panels?: Panel[];
  templating?: { list?: Variable[] };
}

const readDashboard = (): Dashboard => JSON.parse(readFileSync(FILE, 'utf8')) as Dashboard;

/** Every panel, the panels of rows included. */
const allPanels = (list: Panel[] = []): Panel[] => list.flatMap((p) => [p, ...allPanels(p.panels)]);

const variablesOf = (d: Dashboard): Variable[] => d.templating?.list ?? [];

/** Grafana's own variables, as it fills them in (a dashboard's range of 6 h, a step of 1 m). */
const BUILTINS: Record<string, string> = {
  __rate_interval: '5m',
  __interval: '1m',
  __range: '6h',
  __interval_ms: '60000',
  __range_s: '21600',
  __range_ms: '21600000',
};
/** `$name`, `${name}`, `${name:format}`, `[[name]]`. */
const VARIABLE = /\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)(?::\w+)?\]\]/g;

/** The names of the variables `text` uses. */
const variablesIn = (text: string): string[] => [...text.matchAll(VARIABLE)].map((m) => m[1] ?? m[2] ?? m[3]);

/**
 * `expr` as Grafana sends it to Prometheus: its own variables filled in, and each of the
 * dashboard's as "All" makes it (its `allValue`, else every value: `.*`). An undefined one throws.
 */
function expand(expr: string, variables: Variable[]): string {
  return expr.replace(VARIABLE, (whole, a?: string, b?: string, c?: string) => {
    const name = (a ?? b ?? c)!;
    if (BUILTINS[name] !== undefined) return BUILTINS[name];
    const variable = variables.find((v) => v.name === name);
    if (!variable) throw new Error(`${whole} is no variable of the dashboard's`);
    return variable.allValue ?? '.*';
  });
}

/** A query of the dashboard, as Grafana sends it. */
interface Query {
  /** Where it is: `panel <id> "<title>" <refId>` or `variable <name>`. */
  where: string;
  /** Its PromQL, variables substituted. */
  expr: string;
  /** As written. */
  raw: string;
  legend?: string;
  /** `label_values(..., <label>)`: the label whose values it asks for. */
  valuesOf?: string;
  panel?: Panel;
}

/** The PromQL of a query variable's query (`label_values(selector, label)`, `query_result(expr)`). */
function variableQuery(v: Variable): { raw: string; valuesOf?: string } {
  const text = (typeof v.query === 'string' ? v.query : (v.query?.query ?? '')).trim();
  const values = /^label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)$/s.exec(text);
  if (values) return { raw: values[1], valuesOf: values[2] };
  const result = /^query_result\(\s*(.+)\s*\)$/s.exec(text);
  if (result) return { raw: result[1] };
  throw new Error(
    `variable ${v.name}: "${text}" is no query this test reads (label_values with a metric, query_result)`,
  );
}

/** Every query of the dashboard: the panels' targets (rows' panels too) and the query variables'. */
function queriesOf(d: Dashboard): Query[] {
  const variables = variablesOf(d);
  const fromPanels = allPanels(d.panels).flatMap((panel) =>
    (panel.targets ?? [])
      .filter((t) => t.expr !== undefined)
      .map((t) => ({
        where: `panel ${String(panel.id)} "${panel.title ?? ''}" ${t.refId ?? '?'}`,
        raw: t.expr!,
        expr: expand(t.expr!, variables),
        legend: t.legendFormat,
        panel,
      })),
  );
  const fromVariables = variables
    .filter((v) => v.type === 'query')
    .map((v) => {
      const { raw, valuesOf } = variableQuery(v);
      return { where: `variable ${v.name}`, raw, expr: expand(raw, variables), valuesOf };
    });
  return [...fromPanels, ...fromVariables];
}

/** The metric selectors of the queries, each with where it is (`label_values`' label as grouping). */
function usesOf(queries: Query[]): (Selector & { where: string })[] {
  return queries.flatMap((q) =>
    selectors(q.expr).map((s) => ({
      ...s,
      grouping: q.valuesOf ? [...new Set([...s.grouping, q.valuesOf])] : s.grouping,
      where: q.where,
    })),
  );
}

/** The labels a legend shows (`{{label}}`) that its query's result does not carry. */
function legendProblems(queries: Query[], exported: ExportedMetrics): string[] {
  return queries.flatMap((q) => {
    const shown = [...(q.legend ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]);
    const uses = selectors(q.expr);
    const grouped = uses.flatMap((s) => s.grouping);
    // Grouped: what the aggregations keep (`le` is gone after histogram_quantile); else the metric's.
    const kept = new Set(
      grouped.length
        ? grouped.filter((l) => !(l === 'le' && /\bhistogram_quantile\s*\(/.test(q.expr)))
        : uses.flatMap((s) => [...(exported.labels.get(s.name) ?? [])]),
    );
    return shown
      .filter((l) => !kept.has(l))
      .map((l) => `${q.where}: its legend shows {{${l}}}, which its result has not`);
  });
}

/** What makes the JSON no dashboard Grafana imports as meant: one line each. */
function dashboardProblems(d: Dashboard): string[] {
  const problems: string[] = [];
  if (!d.title || !d.uid) problems.push('the dashboard has no title or uid');
  if (typeof d.schemaVersion !== 'number') problems.push('the dashboard has no schemaVersion');
  const panels = allPanels(d.panels);
  if (panels.length === 0) problems.push('the dashboard has no panels');

  // Ids: whole numbers, each once (rows' panels included: Grafana keys panels by id).
  const seen = new Map<unknown, string>();
  for (const p of panels) {
    if (!Number.isInteger(p.id) || (p.id as number) <= 0)
      problems.push(`panel "${p.title ?? ''}" has id ${JSON.stringify(p.id)}, not a positive whole number`);
    else if (seen.has(p.id))
      problems.push(`panels "${seen.get(p.id)}" and "${p.title ?? ''}" share id ${String(p.id)}`);
    else seen.set(p.id, p.title ?? '');
  }

  // The datasource: a variable of type datasource on Prometheus, which every query uses.
  const variables = variablesOf(d);
  const ds = variables.find((v) => v.type === 'datasource');
  if (!ds || ds.query !== 'prometheus') problems.push('no datasource variable on Prometheus');
  const onVariable = (ref: DatasourceRef | null | undefined) =>
    !!ds && (ref?.uid === `\${${ds.name}}` || ref?.uid === `$${ds.name}`);
  for (const p of panels.filter((panel) => panel.targets?.length)) {
    if (!onVariable(p.datasource))
      problems.push(
        `panel ${String(p.id)} "${p.title ?? ''}" is on datasource ${JSON.stringify(p.datasource)}, not the variable`,
      );
    const refIds = new Set<string>();
    for (const t of p.targets!) {
      if (t.datasource && !onVariable(t.datasource))
        problems.push(
          `panel ${String(p.id)} ${t.refId ?? '?'} is on datasource ${JSON.stringify(t.datasource)}, not the variable`,
        );
      if (!t.refId || refIds.has(t.refId))
        problems.push(`panel ${String(p.id)}: a target without a refId of its own`);
      refIds.add(t.refId ?? '');
      if (!t.expr?.trim()) problems.push(`panel ${String(p.id)} ${t.refId ?? '?'} has no expr`);
    }
  }
  for (const v of variables.filter((variable) => variable.type === 'query'))
    if (!onVariable(v.datasource))
      problems.push(`variable ${v.name} is on datasource ${JSON.stringify(v.datasource)}, not the variable`);

  // Variables: each used is defined (or Grafana's own); a multi-value one is matched as a regex
  // (Grafana sends `a|b`, which `=` would compare as a string).
  const defined = new Set([...variables.map((v) => v.name), ...Object.keys(BUILTINS)]);
  const texts = [
    ...panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({
        where: `panel ${String(p.id)} ${t.refId ?? '?'}`,
        text: t.expr ?? '',
      })),
    ),
    ...variables
      .filter((v) => v.type === 'query')
      .map((v) => ({
        where: `variable ${v.name}`,
        text: typeof v.query === 'string' ? v.query : (v.query?.query ?? ''),
      })),
  ];
  for (const { where, text } of texts) {
    for (const name of variablesIn(text))
      if (!defined.has(name)) problems.push(`${where} uses $${name}, which the dashboard does not define`);
    for (const m of text.matchAll(/(\w+)\s*(!=|=)(?![~=])\s*"([^"]*)"/g)) {
      const many = variablesIn(m[3]).filter((name) => {
        const v = variables.find((variable) => variable.name === name);
        return v && (v.multi || v.includeAll);
      });
      for (const name of many)
        problems.push(`${where} matches ${m[1]}${m[2]}"$${name}": a multi-value variable needs =~ or !~`);
    }
  }

  // Layout: inside the 24 columns, no two top-level panels on the same cells.
  const placed = (d.panels ?? []).filter((p) => p.gridPos);
  for (const p of d.panels ?? []) {
    const g = p.gridPos;
    if (!g) problems.push(`panel ${String(p.id)} has no gridPos`);
    else if (g.x < 0 || g.y < 0 || g.w <= 0 || g.h <= 0 || g.x + g.w > 24)
      problems.push(`panel ${String(p.id)} is outside the grid: ${JSON.stringify(g)}`);
  }
  placed.forEach((a, i) =>
    placed.slice(i + 1).forEach((b) => {
      const [p, q] = [a.gridPos!, b.gridPos!];
      if (p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h)
        problems.push(`panels ${String(a.id)} and ${String(b.id)} overlap`);
    }),
  );
  return problems;
}

/**
 * Latency panels in the unit their histogram counts in: seconds for amsflow's (`_seconds`),
 * milliseconds for the Temporal runtime's (as their buckets in a live scrape show).
 */
function unitProblems(queries: Query[], exported: ExportedMetrics): string[] {
  const runtimeUnit = /^temporal_request_latency_bucket\{[^}]*le="50"\} /m.test(exported.scrape) ? 'ms' : 's';
  return queries.flatMap((q) => {
    if (!q.panel || !/\bhistogram_quantile\s*\(/.test(q.expr)) return [];
    const unit = q.panel.fieldConfig?.defaults?.unit;
    return selectors(q.expr)
      .filter((s) => s.name.endsWith('_bucket'))
      .map((s) => ({
        name: s.name,
        want: s.name.startsWith('temporal_')
          ? runtimeUnit
          : /_seconds_bucket$/.test(s.name)
            ? 's'
            : undefined,
      }))
      .filter(({ want }) => want !== undefined && want !== unit)
      .map(({ name, want }) => `${q.where}: ${name} counts in ${want}, the panel shows ${String(unit)}`);
  });
}

/** The top-level panel of `d` with id `id`. */
function panelOf(d: Dashboard, id: number): Panel {
  const found = d.panels?.find((p) => p.id === id);
  if (!found) throw new Error(`the dashboard has no panel ${id}`);
  return found;
}

/** A copy of the dashboard changed by `change`. */
function changed(change: (d: Dashboard) => void): Dashboard {
  const copy = readDashboard();
  change(copy);
  return copy;
}

describe('the Grafana dashboard (deploy/grafana/amsflow-dashboard.json)', () => {
  const dashboard = readDashboard();
  const queries = queriesOf(dashboard);
  let exported: ExportedMetrics;
  beforeAll(async () => {
    exported = await exportedMetrics();
  });

  it('is a dashboard Grafana imports: unique panel ids, every query on the datasource variable, its variables defined', () => {
    expect(dashboardProblems(dashboard)).toEqual([]);
  });

  it('has its queries read: every target (rows too) and variable, Grafana variables substituted', () => {
    const targets = allPanels(dashboard.panels).flatMap((p) => p.targets ?? []);
    const queryVariables = variablesOf(dashboard).filter((v) => v.type === 'query');
    expect(queries).toHaveLength(targets.length + queryVariables.length);
    expect(queries.length).toBeGreaterThanOrEqual(15);
    for (const q of queries)
      expect({ where: q.where, expr: q.expr }).toEqual({
        where: q.where,
        expr: expect.not.stringContaining('$'),
      });
    expect(
      expand('sum by (outcome) (rate(x{agent=~"$agent"}[$__rate_interval]))', variablesOf(dashboard)),
    ).toBe('sum by (outcome) (rate(x{agent=~".*"}[5m]))');
    const uses = usesOf(queries);
    expect(uses).toContainEqual({
      name: 'amsflow_sends_total',
      matchers: [{ label: 'agent', op: '=~', value: '.*' }],
      grouping: ['outcome'],
      where: 'panel 1 "Sends per minute by outcome" A',
    });
    expect(uses).toContainEqual({
      name: 'amsflow_polls_total',
      matchers: [],
      grouping: ['agent'],
      where: 'variable agent',
    });
    expect(
      uses.map((u) => u.name).filter((n) => /^(sum|max|rate|increase|histogram_quantile|by|le)$/.test(n)),
    ).toEqual([]);
  });

  it('names only metrics a worker exports (a live /metrics, and the Temporal core for temporal_*)', () => {
    const uses = usesOf(queries);
    expect(uses.length).toBeGreaterThanOrEqual(queries.length);
    expect(exported.unknownMetrics(uses)).toEqual([]);
    // The runtime's live names are the core's catalogue's (so its names stand for the live ones).
    for (const [name, kind] of [...exported.scraped].filter(([n]) => n.startsWith('temporal_')))
      expect({ name, kind: exported.core.families.get(name) }).toEqual({ name, kind });
  });

  it('matches on, groups by and shows only labels those metrics carry, in the units they count in', () => {
    const uses = usesOf(queries);
    // amsflow's metrics are checked against their samples: the scrape has some of each it queries.
    const amsflow = [...new Set(uses.map((u) => u.name).filter((n) => n.startsWith('amsflow_')))];
    expect(amsflow.filter((name) => !exported.labels.has(name))).toEqual([]);
    expect(exported.unknownLabels(uses)).toEqual([]);
    expect(legendProblems(queries, exported)).toEqual([]);
    expect(unitProblems(queries, exported)).toEqual([]);
  });

  describe('reports a copy broken on purpose, naming where', () => {
    it("a metric renamed in a panel, in a row's panel, in a variable", () => {
      const broken = changed((d) => {
        const first = panelOf(d, 1);
        first.targets![0].expr = first.targets![0].expr!.replace('amsflow_sends_total', 'amsflow_send_total');
        d.panels!.push({
          id: 100,
          type: 'row',
          title: 'More',
          gridPos: { h: 1, w: 24, x: 0, y: 100 },
          panels: [
            {
              id: 101,
              type: 'timeseries',
              title: 'Nested',
              datasource: { type: 'prometheus', uid: '${datasource}' },
              gridPos: { h: 8, w: 12, x: 0, y: 101 },
              targets: [{ refId: 'A', expr: 'sum(rate(amsflow_no_such_total[$__rate_interval]))' }],
            },
          ],
        });
        const agent = variablesOf(d).find((v) => v.name === 'agent')!;
        agent.query = { query: 'label_values(amsflow_poll_total, agent)' };
      });
      expect(dashboardProblems(broken)).toEqual([]);
      expect(exported.unknownMetrics(usesOf(queriesOf(broken)))).toEqual([
        'panel 1 "Sends per minute by outcome" A: amsflow_send_total',
        'panel 101 "Nested" A: amsflow_no_such_total',
        'variable agent: amsflow_poll_total',
      ]);
    });

    it('a label no sample has: grouped by, matched on, asked the values of, shown in a legend', () => {
      const broken = changed((d) => {
        const [sends, ambiguous, polls] = [1, 2, 4].map((id) => panelOf(d, id));
        sends.targets![0].expr = sends.targets![0].expr!.replace('by (outcome)', 'by (result)');
        ambiguous.targets![0].expr = ambiguous.targets![0].expr!.replace('agent=~', 'agnet=~');
        polls.targets![0].legendFormat = '{{outcome}}';
        const agent = variablesOf(d).find((v) => v.name === 'agent')!;
        agent.query = { query: 'label_values(amsflow_polls_total, agent_key)' };
        // A runtime metric with no samples (the worker of the scrape runs no activity): checked
        // against the core's label names.
        const latency = panelOf(d, 14);
        latency.targets![0].expr = latency.targets![0].expr!.replace('task_queue)', 'queue)');
      });
      const queriesBroken = queriesOf(broken);
      expect(exported.unknownLabels(usesOf(queriesBroken))).toEqual([
        expect.stringMatching(
          /^panel 1 "Sends per minute by outcome" A: amsflow_sends_total has no label result \(its samples have agent, outcome\)$/,
        ),
        expect.stringMatching(
          /^panel 2 "Ambiguous sends \(15m\)" A: amsflow_ambiguous_sends_total has no label agnet /,
        ),
        expect.stringMatching(
          /^panel 14 .* A: temporal_activity_schedule_to_start_latency_bucket has no label queue \(the Temporal runtime writes no such label\)$/,
        ),
        expect.stringMatching(/^variable agent: amsflow_polls_total has no label agent_key /),
      ]);
      expect(legendProblems(queriesBroken, exported)).toEqual([
        'panel 1 "Sends per minute by outcome" A: its legend shows {{outcome}}, which its result has not',
        'panel 4 "Polls per minute (limit 15 per agent)" A: its legend shows {{outcome}}, which its result has not',
        'panel 14 "Temporal: activity schedule-to-start latency" A: its legend shows {{task_queue}}, which its result has not',
      ]);
    });

    it('a duplicate id, a datasource not the variable, an undefined or multi-value variable misused, an overlap, a wrong unit', () => {
      const broken = changed((d) => {
        const [, ambiguous, rejections, polls, pollLatency, sendLatency] = [1, 2, 3, 4, 5, 6].map((id) =>
          panelOf(d, id),
        );
        rejections.datasource = { type: 'prometheus', uid: 'P1809F7CD0C75ACF3' };
        polls.targets![0].expr = polls.targets![0].expr!.replace('agent=~"$agent"', 'agent="$agent"');
        pollLatency.targets![0].expr = pollLatency.targets![0].expr!.replace('$agent', '$agents');
        sendLatency.gridPos = { ...pollLatency.gridPos!, x: 6 };
        ambiguous.id = 1;
      });
      expect(dashboardProblems(broken)).toEqual([
        'panels "Sends per minute by outcome" and "Ambiguous sends (15m)" share id 1',
        'panel 3 "429 / 503 per minute" is on datasource {"type":"prometheus","uid":"P1809F7CD0C75ACF3"}, not the variable',
        'panel 4 A matches agent="$agent": a multi-value variable needs =~ or !~',
        'panel 5 A uses $agents, which the dashboard does not define',
        'panels 5 and 6 overlap',
      ]);
      expect(() => queriesOf(broken)).toThrow("$agents is no variable of the dashboard's");
      const panel13 = changed((d) => (panelOf(d, 13).fieldConfig = { defaults: { unit: 's' } }));
      expect(unitProblems(queriesOf(panel13), exported)).toEqual([
        expect.stringMatching(
          /^panel 13 .*: temporal_workflow_task_schedule_to_start_latency_bucket counts in ms, the panel shows s$/,
        ),
      ]);
    });
  });
});
