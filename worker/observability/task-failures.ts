/**
 * Workflow task failures, once each. A workflow whose task fails (a bug such as `undefined.x`,
 * a workflow type missing from the bundle) is retried by Temporal until the code is fixed, and
 * the SDK logs every attempt, from two places (the worker's "Workflow failed" or "Failed to
 * process Workflow Activation", and the core's "Failing workflow task", which names only the
 * run). This logger wrapper reports each failure once, as one line with the workflow id and the
 * message, demotes the repeats to debug, and tells a listener (the bot test harness fails the
 * running test with it).
 *
 * A workflow that fails with a Temporal failure (`ApplicationFailure`) has not failed a task:
 * its "Workflow failed" line passes through as it is (listeners hear of it as `kind: 'workflow'`).
 * Nor has a query that amsflow's activation guard refused (workflows/engine/activation-guard.ts):
 * that is one INFO line, the core's, with the guard's reason; the worker's copy goes to debug.
 */
import { join, sep } from 'node:path';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { mentionsGuardRefusal } from '../../protocol/messages';
import { LevelLogger } from './level-logger';

/** One failure, as reported. */
export interface TaskFailure {
  /** 'task': the workflow task failed and is retried; 'workflow': the workflow failed (a Temporal failure). */
  kind: 'task' | 'workflow';
  workflowId?: string;
  runId?: string;
  workflowType?: string;
  taskQueue?: string;
  message: string;
  /** The first stack frame in the author's code, when the error has one (`bot.ts:12:7`). */
  at?: string;
}

/** Runs and failures remembered at most (oldest forgotten first). */
const REMEMBERED = 2000;

interface RunInfo {
  workflowId?: string;
  workflowType?: string;
  taskQueue?: string;
}

/** The `message: "..."` of the core's `Failure { ... }` debug text. */
const CORE_MESSAGE = /message: "((?:[^"\\]|\\.)*)"/;

function coreMessage(failure: unknown): string | undefined {
  if (typeof failure !== 'string') return undefined;
  const found = CORE_MESSAGE.exec(failure)?.[1];
  return found === undefined ? undefined : found.replace(/\\(.)/g, '$1');
}

/** amsflow's own workflow code (in a clone; installed, it is under node_modules). */
const OWN = [join(__dirname, '..', '..', 'workflows') + sep, join(__dirname, '..', '..', 'protocol') + sep];

/** The first frame of `stack` in the author's code: not the SDK's, the bundle's, node's or amsflow's. */
export function authorFrame(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  for (const line of stack.split('\n')) {
    const frame = /^\s*at (?:.*\()?(.+?:\d+:\d+)\)?$/.exec(line)?.[1];
    if (!frame || /node_modules|workflow-bundle-|node:internal|evalmachine/.test(frame)) continue;
    if (!OWN.some((dir) => frame.startsWith(dir))) return frame;
  }
  return undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * For a log line about a query the activation guard refused: the line to log at INFO instead (the
 * core's), or '' to demote it to debug (the worker's copy); undefined for any other line.
 */
export function guardRefusal(message: string, meta: LogMetadata): string | undefined {
  if (message === 'Failed to process Workflow Activation') {
    return mentionsGuardRefusal((meta.error as { message?: unknown } | undefined)?.message) ? '' : undefined;
  }
  if (message !== 'Failing legacy query request' || !mentionsGuardRefusal(meta.failure)) return undefined;
  const reason = coreMessage(meta.failure) ?? 'see the failure';
  return `A query was refused by amsflow's activation guard (the run is rebuilt from its history; ask again): ${reason}`;
}

/** Wraps `inner`: workflow task failures once each; everything else passes through. */
export class TaskFailureLogger extends LevelLogger {
  private readonly runs = new Map<string, RunInfo>();
  private readonly seen = new Set<string>();
  private readonly listeners = new Set<(failure: TaskFailure) => void>();

  constructor(readonly inner: Logger) {
    super();
  }

  /** Calls `listener` with each failure the first time it is seen; returns the unsubscribe. */
  onFailure(listener: (failure: TaskFailure) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    this.remember(meta);
    const refused = guardRefusal(message, meta);
    if (refused !== undefined) {
      this.inner.log(refused ? 'INFO' : 'DEBUG', refused || message, meta);
      return;
    }
    const failure = this.failureOf(level, message, meta);
    if (!failure) {
      this.inner.log(level, message, meta);
      return;
    }
    const key = `${failure.workflowId ?? failure.runId}\n${failure.message}`;
    if (this.seen.has(key)) {
      this.inner.log('DEBUG', message, meta);
      return;
    }
    this.bounded(this.seen).add(key);
    for (const listener of this.listeners) listener(failure);
    if (failure.kind === 'workflow') {
      this.inner.log(level, message, meta);
      return;
    }
    const fields = {
      ...(failure.workflowId ? { workflowId: failure.workflowId } : {}),
      ...(failure.runId ? { runId: failure.runId } : {}),
      ...(failure.workflowType ? { workflowType: failure.workflowType } : {}),
      ...(failure.at ? { at: failure.at } : {}),
    };
    this.inner.log(
      'WARN',
      `Workflow task failed: ${failure.message}. Temporal retries it until the code is fixed and the worker restarted; this is logged once`,
      fields,
    );
  }

  private remember(meta: LogMetadata): void {
    const runId = str(meta.runId);
    if (!runId || this.runs.has(runId)) return;
    const workflowId = str(meta.workflowId);
    if (!workflowId) return;
    if (this.runs.size >= REMEMBERED) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(runId, {
      workflowId,
      workflowType: str(meta.workflowType),
      taskQueue: str(meta.taskQueue),
    });
  }

  private bounded(set: Set<string>): Set<string> {
    if (set.size >= REMEMBERED) set.delete(set.values().next().value!);
    return set;
  }

  private failureOf(level: LogLevel, message: string, meta: LogMetadata): TaskFailure | undefined {
    const runId = str(meta.runId);
    const run = (runId && this.runs.get(runId)) || {};
    const base = {
      runId,
      workflowId: str(meta.workflowId) ?? run.workflowId,
      workflowType: str(meta.workflowType) ?? run.workflowType,
      taskQueue: str(meta.taskQueue) ?? run.taskQueue,
    };
    if (message === 'Failing workflow task' && level === 'WARN') {
      const text = coreMessage(meta.failure);
      return text === undefined ? undefined : { kind: 'task', ...base, message: text };
    }
    if (message !== 'Workflow failed' && message !== 'Failed to process Workflow Activation')
      return undefined;
    const error = meta.error as { message?: unknown; stack?: unknown } | undefined;
    if (typeof error?.message !== 'string') return undefined;
    const failed = { ...base, message: error.message, at: authorFrame(error.stack) };
    // The error reaches the worker as a copy that lost its class, but its stack still begins with
    // the class's name: a Temporal failure (`ApplicationFailure: ...`) fails the workflow, not its
    // task (no retry: the SDK logs it once).
    const temporal = typeof error.stack === 'string' && /^[A-Za-z]*Failure: /.test(error.stack);
    return { kind: temporal ? 'workflow' : 'task', ...failed };
  }
}
