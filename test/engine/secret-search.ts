/**
 * Searching what an engine run leaves behind for a secret: every run of every workflow an agent
 * owns (found through Temporal visibility, chains of continue-as-new followed), serialised with
 * payload bytes decoded as UTF-8 text, and each run's description (pending activities' last
 * failures never reach the history).
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/** One workflow run, rendered as searchable text. */
export interface RunText {
  workflowId: string;
  runId: string;
  /** Its history's events and its description, as JSON with every byte field decoded as UTF-8. */
  text: string;
}

/**
 * `value` as plain JSON data: byte fields become their UTF-8 text (payload data, metadata),
 * Longs and bigints become decimal strings.
 */
export function plain(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return value;
  if (depth > 64) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => plain(v, depth + 1));
  if (value instanceof Date) return value.toISOString();
  // protobufjs Longs (timestamps, ids).
  const long = value as { low?: unknown; high?: unknown; unsigned?: unknown; toString?: () => string };
  if (typeof long.low === 'number' && typeof long.high === 'number' && typeof long.unsigned === 'boolean') {
    return String(long.toString?.());
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = plain(v, depth + 1);
  return out;
}

/** The searchable text of some events (and anything else): JSON of {@link plain}. */
export function textOf(value: unknown): string {
  return JSON.stringify(plain(value));
}

/** The forms in which `secret` is looked for: as is, and base64-encoded (in case something encodes it). */
export function secretForms(secret: string): string[] {
  const base64 = Buffer.from(secret).toString('base64');
  return [...new Set([secret, base64, Buffer.from(secret).toString('base64url')])];
}

/** Where `needle` occurs in `haystack`: each hit with some context, at most `max`. */
export function hits(haystack: string, needle: string, max = 5): string[] {
  const found: string[] = [];
  for (
    let at = haystack.indexOf(needle);
    at >= 0 && found.length < max;
    at = haystack.indexOf(needle, at + 1)
  ) {
    found.push(haystack.slice(Math.max(0, at - 160), at + needle.length + 160));
  }
  return found;
}

/** Every occurrence of any form of `secret` in `texts`, labelled with where it was. */
export function search(texts: { where: string; text: string }[], secret: string): string[] {
  const forms = secretForms(secret);
  return texts.flatMap(({ where, text }) =>
    forms.flatMap((form) => hits(text, form).map((context) => `${where}: …${context}…`)),
  );
}

/** The visibility queries that find every workflow of agent `agentKey` on `taskQueue`. */
export function agentQueries(agentKey: string, taskQueue: string): string[] {
  return [
    `WorkflowId = "agent:${agentKey}"`,
    `WorkflowId STARTS_WITH "agent:${agentKey}:"`,
    `WorkflowId STARTS_WITH "approval:${agentKey}:"`,
    `WorkflowId = "reminders:${agentKey}"`,
    `TaskQueue = "${taskQueue}"`,
  ];
}

/** Every run the queries list, as `workflowId` → run ids. */
export async function listRuns(client: Client, queries: string[]): Promise<Map<string, Set<string>>> {
  const runs = new Map<string, Set<string>>();
  for (const query of queries) {
    for await (const wf of client.workflow.list({ query })) {
      const ids = runs.get(wf.workflowId) ?? new Set<string>();
      ids.add(wf.runId);
      runs.set(wf.workflowId, ids);
    }
  }
  return runs;
}

/**
 * The text of each run in `runs` and of every run chained to one by continue-as-new (the run
 * it continued, the run that continued it), whether or not visibility listed it.
 */
export async function runTexts(client: Client, runs: Map<string, Set<string>>): Promise<RunText[]> {
  const todo = [...runs].flatMap(([workflowId, ids]) => [...ids].map((runId) => ({ workflowId, runId })));
  const seen = new Set(todo.map((r) => `${r.workflowId}/${r.runId}`));
  const out: RunText[] = [];
  while (todo.length > 0) {
    const { workflowId, runId } = todo.shift()!;
    const handle = client.workflow.getHandle(workflowId, runId);
    const history = await handle.fetchHistory();
    const description = await handle.describe();
    const events = (history.events ?? []) as temporal.api.history.v1.IHistoryEvent[];
    const chained = [
      events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId,
      events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId,
    ];
    for (const next of chained) {
      if (next && !seen.has(`${workflowId}/${next}`)) {
        seen.add(`${workflowId}/${next}`);
        todo.push({ workflowId, runId: next });
      }
    }
    out.push({ workflowId, runId, text: textOf({ events, description: description.raw }) });
  }
  return out;
}
