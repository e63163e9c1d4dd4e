/**
 * The alerts shipped as Prometheus rules (deploy/prometheus/amsflow-alerts.rules.yml) load and do
 * what their unit tests (amsflow-alerts.test.yml) say: `promtool check rules` and `promtool test
 * rules` pass. The unit tests can fail: a rule broken on purpose fails them, naming it; every alert
 * made never to fire fails them (each has series that must fire it), and so does every alert with
 * its threshold dropped (each has series present that must not fire it). Every metric the rules
 * name is one a worker serves on `/metrics`, with each label they match on or group by, and each
 * label value they match is one amsflow's code (or the Temporal core's) writes: amsflow's from a
 * live scrape of the real endpoint (it declares each family before its first sample); the Temporal
 * runtime's show in a scrape only once they happen (a failed workflow task, a throttled request),
 * so they are checked against the metrics the installed Temporal core declares, named as
 * `/metrics` names them (checked on the same scrape); see test/support/exported-metrics.ts.
 * docs/OPERATIONS.md ("Alerts") lists the same alerts with the same PromQL.
 * promtool comes from `npm run setup` (scripts/promtool.ts); without it the test fails, saying how
 * to get it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dump, load } from 'js-yaml';
import { findPromtool, PROMTOOL_HINT } from '../../scripts/promtool';
import { exportedMetrics, matcherValues, PROMETHEUS_OWN, selectors } from '../support/exported-metrics';

jest.setTimeout(120_000);

const root = resolve(__dirname, '..', '..');
const DIR = join(root, 'deploy', 'prometheus');
const RULES_FILE = 'amsflow-alerts.rules.yml';
const TESTS_FILE = 'amsflow-alerts.test.yml';
const OPERATIONS = join(root, 'docs', 'OPERATIONS.md');
interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RulesFile {
  groups: { name: string; rules: AlertRule[] }[];
}

const readRules = (): RulesFile => load(readFileSync(join(DIR, RULES_FILE), 'utf8')) as RulesFile;
const alertsOf = (file: RulesFile): AlertRule[] => file.groups.flatMap((g) => g.rules);

function promtool(): string {
  const path = findPromtool();
  if (!path) throw new Error(`promtool is missing: ${PROMTOOL_HINT}`);
  return path;
}

/** promtool with `args` in `cwd`: its exit status and what it printed. */
function runPromtool(args: string[], cwd: string): { status: number | null; output: string } {
  const run = spawnSync(promtool(), args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `promtool test rules` on the unit tests with `rules` (the text of a rules file) beside them. */
function testRulesText(rules: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-rules-'));
  temps.push(dir);
  writeFileSync(join(dir, RULES_FILE), rules);
  copyFileSync(join(DIR, TESTS_FILE), join(dir, TESTS_FILE));
  return runPromtool(['test', 'rules', TESTS_FILE], dir);
}

/** The alerts promtool's failures name. */
const failingAlerts = (output: string): string[] =>
  [...new Set([...output.matchAll(/alertname: (\w+)/g)].map((m) => m[1]))].sort();

/** An alert's expression as `<left> <comparison> <number>` (every rule ends so). */
function threshold(expr: string): { left: string; op: string; value: string } | undefined {
  const m = /^([\s\S]*\S)\s+(==|!=|>=|<=|>|<)\s+(-?\d+(?:\.\d+)?)$/.exec(expr.trim());
  return m ? { left: m[1], op: m[2], value: m[3] } : undefined;
}

/** The words of amsflow's code that writes metrics and their label values. */
function workerSource(): string {
  const read = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? read(join(dir, e.name))
        : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
          ? [readFileSync(join(dir, e.name), 'utf8')]
          : [],
    );
  return ['worker', 'workflows', 'activities', 'protocol'].flatMap((d) => read(join(root, d))).join('\n');
}

/** One line of every kind of whitespace: the YAML folds and the Markdown cells differ only there. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

describe('the alert rules (deploy/prometheus/amsflow-alerts.rules.yml)', () => {
  const alerts = alertsOf(readRules());

  it('each have a unique name, `for`, a severity, a summary, a description and a first step', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(20);
    const names = alerts.map((a) => a.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const a of alerts) {
      expect({ alert: a.alert, name: /^Amsflow[A-Z]\w+$/.test(a.alert) }).toEqual({
        alert: a.alert,
        name: true,
      });
      expect({ alert: a.alert, for: a.for }).toEqual({
        alert: a.alert,
        for: expect.stringMatching(/^\d+[smh]$/),
      });
      expect({ alert: a.alert, severity: a.labels?.severity }).toEqual({
        alert: a.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect(Object.keys(a.annotations ?? {}).sort()).toEqual(['description', 'first_step', 'summary']);
      // The mutations below need it.
      expect({ alert: a.alert, threshold: threshold(a.expr) !== undefined }).toEqual({
        alert: a.alert,
        threshold: true,
      });
    }
  });

  it('pass `promtool check rules`', () => {
    const result = runPromtool(['check', 'rules', RULES_FILE], DIR);
    expect(result.output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(result.status).toBe(0);
  });

  it('pass their unit tests (`promtool test rules`), which test every alert', () => {
    const result = runPromtool(['test', 'rules', TESTS_FILE], DIR);
    expect(result.output).toMatch(/SUCCESS/);
    expect(result.status).toBe(0);
    const tests = load(readFileSync(join(DIR, TESTS_FILE), 'utf8')) as {
      rule_files: string[];
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    expect(tests.rule_files).toEqual([RULES_FILE]);
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const firing = new Set(cases.filter((c) => c.exp_alerts?.length).map((c) => c.alertname));
    expect(alerts.map((a) => a.alert).filter((name) => !firing.has(name))).toEqual([]);
  });

  it('fail their unit tests when a rule is broken on purpose, naming it (its threshold flipped)', () => {
    const text = readFileSync(join(DIR, RULES_FILE), 'utf8');
    const line = 'expr: max by (agent) (amsflow_outbox_queue_length) > 20';
    expect(text.split(line)).toHaveLength(2);
    const result = testRulesText(text.replace(line, line.replace('> 20', '< 20')));
    expect(result.status).not.toBe(0);
    expect(failingAlerts(result.output)).toEqual(['AmsflowOutboxBackingUp']);
  });

  it('fail their unit tests with every alert made never to fire: each has series that must fire it', () => {
    const file = readRules();
    for (const a of alertsOf(file)) a.expr = `(${threshold(a.expr)!.left}) > Inf`;
    const result = testRulesText(dump(file, { lineWidth: -1 }));
    expect(result.status).not.toBe(0);
    expect(failingAlerts(result.output)).toEqual(alerts.map((a) => a.alert).sort());
  });

  it('fail their unit tests with every threshold dropped: each has series present that must not fire it', () => {
    const file = readRules();
    for (const a of alertsOf(file)) a.expr = threshold(a.expr)!.left;
    const result = testRulesText(dump(file, { lineWidth: -1 }));
    expect(result.status).not.toBe(0);
    expect(failingAlerts(result.output)).toEqual(alerts.map((a) => a.alert).sort());
  });

  it('are the ones docs/OPERATIONS.md lists under "Alerts", with the same PromQL, severity and `for`', () => {
    const doc = readFileSync(OPERATIONS, 'utf8');
    const start = doc.indexOf('\n### Alerts\n');
    expect(start).toBeGreaterThan(0);
    const end = doc.slice(start + 1).search(/\n#{2,3} /);
    const section = doc.slice(start, end < 0 ? undefined : start + 1 + end);
    expect(section).toContain('deploy/prometheus/amsflow-alerts.rules.yml');
    const rows = section
      .split('\n')
      .filter((l) => /^\| `Amsflow/.test(l))
      .map((l) => {
        // Cells split at `|` not escaped as `\|`.
        const cells = l
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replace(/\\\|/g, '|'));
        const code = (cell: string) => /^`(.*)`$/.exec(cell)?.[1];
        return { alert: code(cells[0]), severityFor: cells[1], expr: code(cells[2]) };
      });
    expect(rows).toEqual(
      alerts.map((a) => ({
        alert: a.alert,
        severityFor: `${a.labels?.severity}, ${a.for}`,
        expr: oneLine(a.expr),
      })),
    );
  });
});

describe('the metrics the rules name', () => {
  const used = alertsOf(readRules()).flatMap((a) => selectors(a.expr).map((s) => ({ alert: a.alert, ...s })));

  it('are found in the rules (the PromQL reader works)', () => {
    const names = new Set(used.map((s) => s.name));
    for (const name of [
      'amsflow_agent_status',
      'amsflow_outbox_queue_length',
      'amsflow_send_duration_seconds_bucket',
      'temporal_num_pollers',
      'temporal_workflow_task_execution_failed_total',
      'temporal_long_request_failure_total',
      'up',
    ])
      expect(names).toContain(name);
    expect([...names].filter((n) => /^(sum|max|min|by|increase|rate|offset|le|agent)$/.test(n))).toEqual([]);
    expect(selectors('sum by (a, le) (rate(x_bucket{l=~"p|q"}[5m] offset 1h)) unless on (a) y > 2')).toEqual([
      { name: 'x_bucket', matchers: [{ label: 'l', op: '=~', value: 'p|q' }], grouping: ['a', 'le'] },
      { name: 'y', matchers: [], grouping: [] },
    ]);
  });

  it('are metrics a worker serves on /metrics, with the labels and label values it writes', async () => {
    const exported = await exportedMetrics();
    const { scraped: scrape, core } = exported;
    // `/metrics` names the runtime's metrics as the catalogue does (prefix, `_total`, kind).
    const liveRuntime = [...scrape].filter(([name]) => name.startsWith('temporal_'));
    expect(liveRuntime.map(([name]) => name)).toEqual(
      expect.arrayContaining(['temporal_request_total', 'temporal_request_latency']),
    );
    for (const [name, kind] of liveRuntime)
      expect({ name, kind: core.families.get(name) }).toEqual({ name, kind });
    // Every family amsflow registers is declared in the scrape, samples or not.
    expect(scrape.get('amsflow_agent_status')).toBe('gauge');
    expect(scrape.get('amsflow_inbound_misfits_total')).toBe('counter');

    const uses = used.map((s) => ({ ...s, where: s.alert }));
    expect(exported.unknownMetrics(uses)).toEqual([]);
    // Each label matched on or grouped by is on the metric (its samples in the scrape).
    expect(exported.unknownLabels(uses)).toEqual([]);

    // A label value nobody writes would make its alert silent for ever: each must be in the code
    // that writes the metric (the core's source for temporal_*, amsflow's own for amsflow_*).
    const amsflowSource = workerSource();
    const written = (name: string, value: string): boolean =>
      name.startsWith('temporal_')
        ? core.source.includes(`"${value}"`)
        : new RegExp(`(?<![\\w.])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`).test(
            amsflowSource,
          );
    const unwritten = used
      .filter((s) => !PROMETHEUS_OWN.has(s.name))
      .flatMap((s) =>
        s.matchers.flatMap((m) =>
          matcherValues(m)
            .filter((v) => !written(s.name, v))
            .map((v) => `${s.alert}: ${s.name}{${m.label}${m.op}"${v}"}`),
        ),
      );
    expect(unwritten).toEqual([]);
  });
});
