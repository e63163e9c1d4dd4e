/**
 * What agents cost the Temporal server, from its own counters (a dev server started with
 * `metricsPort`, worker/dev-server.ts): database writes (`persistence_requests` of the namespace,
 * every operation but reads) and the actions Temporal Cloud would bill (the server's `action`
 * counter of the namespace, by `action_type`). Two scrapes make a stretch; the stretch, divided by
 * agents and minutes, is what one agent costs a minute, and at Cloud's list price a month.
 */
import { z } from 'zod';

/** Temporal Cloud's list price of actions (USD per million), as the fleet issue prices them. */
export const CLOUD_USD_PER_MILLION_ACTIONS = 50;
/** Hours in an average month (365.25 × 24 / 12). */
const HOURS_A_MONTH = 730.5;

/** A persistence operation that only reads (any other one writes). */
const READ_OPERATION = /^(Get|List|Read|Scan|Describe|Count)/;

/** One scrape's counters of a namespace, by persistence operation and by action type. */
export interface ServerCounters {
  writes: Record<string, number>;
  actions: Record<string, number>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const value = z.coerce.number().finite().nonnegative();

/** The labels of a sample's `{...}`. */
function labelsOf(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const m of (text ?? '').matchAll(LABEL)) labels[m[1]] = m[2];
  return labels;
}

/**
 * The write and action counters of `namespace` in a scrape (Prometheus text). Throws on a line
 * that is neither a comment nor a sample, or a counter that is not a number.
 */
export function serverCounters(text: string, namespace: string): ServerCounters {
  const counters: ServerCounters = { writes: {}, actions: {} };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`server metrics: not a Prometheus sample: ${JSON.stringify(line.slice(0, 120))}`);
    const [, name, rawLabels, rawValue] = m;
    if (name !== 'persistence_requests' && name !== 'action') continue;
    const labels = labelsOf(rawLabels);
    if (labels.namespace !== namespace) continue;
    const parsed = value.safeParse(rawValue);
    if (!parsed.success)
      throw new Error(`server metrics: ${name} is not a count: ${JSON.stringify(rawValue)}`);
    const [bucket, key] =
      name === 'action'
        ? [counters.actions, labels.action_type ?? '?']
        : READ_OPERATION.test(labels.operation ?? '')
          ? [undefined, '']
          : [counters.writes, labels.operation ?? '?'];
    if (bucket) bucket[key] = (bucket[key] ?? 0) + parsed.data;
  }
  return counters;
}

/** What a stretch between two scrapes cost, per agent-minute, with its largest parts. */
export interface StretchCost {
  writesPerAgentMinute: number;
  actionsPerAgentMinute: number;
  /** Actions per agent-hour, and what an agent costs a month at Cloud's list price (USD). */
  actionsPerAgentHour: number;
  cloudUsdPerAgentMonth: number;
  /** Per agent-minute, by operation and by action type, largest first (those above 0.005). */
  writesByOperation: Record<string, number>;
  actionsByType: Record<string, number>;
}

const per = (count: number, agents: number, ms: number) => (count / agents) * (60_000 / ms);
const round = (n: number, digits = 2) => +n.toFixed(digits);

/** `after − before`, per key, per agent-minute, largest first, the negligible left out. */
function rates(before: Record<string, number>, after: Record<string, number>, agents: number, ms: number) {
  return Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, round(per(v - (before[k] ?? 0), agents, ms), 3)] as const)
      .filter(([, v]) => v > 0.005)
      .sort((a, b) => b[1] - a[1]),
  );
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** The cost of `agents` over `ms` between the scrapes `before` and `after`. */
export function stretchCost(
  before: ServerCounters,
  after: ServerCounters,
  agents: number,
  ms: number,
): StretchCost {
  if (agents <= 0 || ms <= 0) throw new Error('stretchCost: agents and ms must be positive');
  const actions = per(sum(after.actions) - sum(before.actions), agents, ms);
  return {
    writesPerAgentMinute: round(per(sum(after.writes) - sum(before.writes), agents, ms)),
    actionsPerAgentMinute: round(actions),
    actionsPerAgentHour: round(actions * 60, 1),
    cloudUsdPerAgentMonth: round(((actions * 60 * HOURS_A_MONTH) / 1e6) * CLOUD_USD_PER_MILLION_ACTIONS),
    writesByOperation: rates(before.writes, after.writes, agents, ms),
    actionsByType: rates(before.actions, after.actions, agents, ms),
  };
}

/** Scrapes the server's metrics at `url` for `namespace`. */
export async function scrapeServer(url: string, namespace = 'default'): Promise<ServerCounters> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`server metrics: ${url} answered ${response.status}`);
  return serverCounters(await response.text(), namespace);
}
