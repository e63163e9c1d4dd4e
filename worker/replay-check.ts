/**
 * The replay check before a rollout (`amsflow replay`): recent histories of each workflow type,
 * fetched from the cluster or read from exported files, replayed against a bot module's new code
 * (bundled as the worker bundles it) with `Worker.runReplayHistories`. A history that does not
 * replay names a workflow the new build could not run. Every workflow is pinned: a conversation or
 * an approval fails only if it is moved to the new build by hand (`amsflow deploy move`), and
 * otherwise finishes on its own; the agent and reminders move at continue-as-new, with their state
 * and without a replay (workflows/author/build-moves.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { MOVING_WORKFLOW_TYPES } from '../protocol/deployments';
import { ENGINE_WORKFLOWS } from './bot-bundle';

/** One history to replay: where it came from and what it is. */
export interface ReplayHistory {
  workflowId: string;
  /** The workflow type, when known (fetched histories; files are read without it). */
  workflowType?: string;
  /** The build it last ran on (fetched histories of versioned workers). */
  build?: string;
  /** `running` when the workflow still runs. */
  status?: string;
  history: unknown;
}

export interface ReplayOutcome {
  workflowId: string;
  workflowType?: string;
  build?: string;
  status?: string;
  /** Undefined when it replayed; otherwise why not (a non-determinism, a missing workflow type...). */
  error?: string;
  /**
   * Whether the workflow moves to the new build by itself (agent, reminders), at continue-as-new
   * with its state: its history is never replayed there.
   */
  movesAtContinueAsNew: boolean;
}

export interface FetchOptions {
  taskQueue: string;
  /** Histories per workflow type, newest first. Default 10. */
  perType?: number;
  /** Recent executions scanned for the bot's own workflow types. Default 200. */
  scan?: number;
}

const quote = (value: string) => `'${value.replace(/'/g, "\\'")}'`;

function replayHistoryOf(info: WorkflowExecutionInfo, history: unknown): ReplayHistory {
  const build = info.searchAttributes?.TemporalWorkerDeploymentVersion as string[] | undefined;
  return {
    workflowId: info.workflowId,
    workflowType: info.type,
    build: build?.[0],
    status: info.status.name.toLowerCase(),
    history,
  };
}

/**
 * The newest `perType` histories of every workflow type on the task queue: amsflow's own types
 * always, and every type among the newest `scan` executions (handlers, the bot's own workflows).
 */
export async function fetchHistories(client: Client, options: FetchOptions): Promise<ReplayHistory[]> {
  const onQueue = `TaskQueue = ${quote(options.taskQueue)}`;
  const types = new Set<string>(ENGINE_WORKFLOWS);
  let scanned = 0;
  for await (const info of client.workflow.list({ query: onQueue, pageSize: 100 })) {
    types.add(info.type);
    if (++scanned >= (options.scan ?? 200)) break;
  }
  const found: ReplayHistory[] = [];
  for (const type of types) {
    let taken = 0;
    const query = `${onQueue} AND WorkflowType = ${quote(type)}`;
    for await (const info of client.workflow.list({ query, pageSize: options.perType ?? 10 })) {
      const history = await client.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
      found.push(replayHistoryOf(info, history));
      if (++taken >= (options.perType ?? 10)) break;
    }
  }
  return found;
}

/**
 * Histories exported as JSON (`temporal workflow show --output json`): files, or every `.json`
 * of a folder. A workflow's id is its file's name without `.json`, unless the folder's
 * `workflow-ids.json` maps the name to one (as test/histories/ does).
 */
export function readHistories(paths: readonly string[]): ReplayHistory[] {
  return paths.flatMap((path) => {
    if (!existsSync(path)) throw new Error(`no history file or folder at ${path}`);
    if (!statSync(path).isDirectory()) return [fileHistory(path, {})];
    const idsFile = join(path, 'workflow-ids.json');
    const ids = existsSync(idsFile)
      ? (JSON.parse(readFileSync(idsFile, 'utf8')) as Record<string, string>)
      : {};
    return readdirSync(path)
      .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
      .sort()
      .map((f) => fileHistory(join(path, f), ids));
  });
}

function fileHistory(file: string, ids: Record<string, string>): ReplayHistory {
  const name = basename(file).replace(/\.json$/, '');
  let history: unknown;
  try {
    history = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} is not a history exported as JSON: ${(err as Error).message}`);
  }
  const events = (
    history as {
      events?: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
    }
  ).events;
  if (!Array.isArray(events)) throw new Error(`${file} is not a history exported as JSON: it has no events`);
  const workflowType = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;
  return { workflowId: ids[name] ?? name, workflowType, history };
}

/**
 * Why a history did not replay, in one line: the SDK's failure name with the core's own message
 * when it wraps one ("[TMPRL1100] Nondeterminism error: Timer machine does not handle this
 * event: ..."), else its first line.
 */
export function reasonOf(error: unknown): string {
  const err = error as Error & { cause?: Error };
  const message = err?.message ?? String(error);
  const inner = /message: "((?:[^"\\]|\\.)*)"/.exec(message)?.[1];
  const first = (text: string) => text.split('\n')[0];
  const own = `${err?.name ?? 'Error'}: ${inner ?? first(message)}`;
  return err?.cause?.message ? `${own} (${first(err.cause.message)})` : own;
}

/**
 * The SDK's own lines (each replay worker's states, every failed replay again as a warning) would
 * bury the report, which says it all: only errors are shown. A Runtime installed already (a test's,
 * a worker's) keeps its own logger.
 */
function quietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // Installed already.
  }
}

/**
 * The sink a bundle with tracing's workflow interceptors calls (workflows/engine/tracing.ts): a
 * replay exports nothing, but the sink must exist for the calls to be dropped quietly.
 */
const TRACING_SINKS = { exporter: { export: { fn: () => undefined } } };

/**
 * Replays `histories` against `workflowBundle`; one outcome per history, in their order.
 * `tracing`: the bundle has tracing's workflow interceptors (`bundleBot({ tracing })`).
 */
export async function replayAll(
  workflowBundle: WorkflowBundleWithSourceMap,
  histories: readonly ReplayHistory[],
  dataConverter?: DataConverter,
  tracing = false,
): Promise<ReplayOutcome[]> {
  // Results come in the order of the histories (one replay at a time); the code sees each
  // workflow's own id, as it did when it ran.
  quietRuntime();
  const errors: (string | undefined)[] = [];
  for await (const result of Worker.runReplayHistories(
    {
      workflowBundle,
      dataConverter,
      replayName: 'amsflow-replay-check',
      ...(tracing ? { sinks: TRACING_SINKS } : {}),
    },
    histories.map((h) => ({ workflowId: h.workflowId, history: h.history as never })),
  )) {
    errors.push(result.error ? reasonOf(result.error) : undefined);
  }
  return histories.map((h, i) => ({
    workflowId: h.workflowId,
    workflowType: h.workflowType,
    build: h.build,
    status: h.status,
    error: i < errors.length ? errors[i] : 'not replayed',
    movesAtContinueAsNew: (MOVING_WORKFLOW_TYPES as readonly string[]).includes(h.workflowType ?? ''),
  }));
}
