/**
 * The bot test harness's Temporal Runtime: a logger that keeps a passing test's output to jest's
 * summary. It drops the SDK's known benign warnings ({@link BENIGN_SDK_WARNINGS}), shows every
 * other warning and error as one plain line on stderr, reports each workflow task failure once
 * (and to the harness, which fails the running test with it), and forwards the core's own logs
 * through it (by default the core writes them straight to the console, past any filter).
 */
import type { LogLevel, LogMetadata } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { redactText } from '../core/redact';
import { LevelLogger, LOG_LEVEL_RANK as RANK } from '../worker/observability/level-logger';
import { TaskFailureLogger } from '../worker/observability/task-failures';

/**
 * Warnings the SDK prints in every bot test although nothing is wrong; each with why it is
 * benign. Anything else at WARN or ERROR is shown.
 */
export const BENIGN_SDK_WARNINGS: readonly { pattern: RegExp; why: string }[] = [
  {
    pattern: /^Temporal Server 1\.16\.0 or newer is required/,
    why: 'the time-skipping test server does not advertise a capability (heartbeat details of a failed activity) that amsflow does not use',
  },
  {
    pattern: /^No (workflows|activities|Nexus services) registered, not polling/,
    why: "the harness's workers are single-purpose: one runs workflows, the others one endpoint's activities each",
  },
  {
    pattern: /^Activity not found on completion/,
    why: 'a model call that its turn cancelled (the human wrote again) finished before its next heartbeat brought it the cancel; its answer is dropped',
  },
];

/** Where the harness's lines go; tests replace it to read them. */
export interface LineWriter {
  write(line: string): unknown;
}

/** Warnings and errors, one line each, minus the benign ones. */
export class QuietLogger extends LevelLogger {
  constructor(private readonly out: LineWriter = process.stderr) {
    super();
  }

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    if (RANK[level] < RANK.WARN) return;
    if (BENIGN_SDK_WARNINGS.some((b) => b.pattern.test(message))) return;
    const context = ['workflowId', 'runId', 'workflowType', 'at']
      .filter((key) => typeof meta[key] === 'string')
      .map((key) => `${key}=${String(meta[key])}`)
      .join(' ');
    // The error of a workflow's log line is a copy from its sandbox: not an `instanceof Error`.
    const message_ =
      typeof meta.error === 'string'
        ? meta.error
        : (meta.error as { message?: unknown } | undefined)?.message;
    const error = typeof message_ === 'string' ? ` error=${message_}` : '';
    // Task tokens and registered secrets never reach the output (a message may quote them).
    this.out.write(
      redactText(`[temporal ${level}] ${message}${context ? ` (${context})` : ''}${error}`) + '\n',
    );
  }
}

let installed: TaskFailureLogger | undefined;

/**
 * Installs the harness's Runtime unless one is installed already; returns its failure reporter,
 * or undefined when another Runtime was installed first (then that Runtime's logger decides what
 * shows, and a workflow task failure is not seen by the harness: the test times out instead).
 * A test set-up that installs a Runtime of its own should call this instead.
 */
export function installTestRuntime(): TaskFailureLogger | undefined {
  const runtime = (Runtime as unknown as { _instance?: Runtime })._instance;
  if (runtime !== undefined)
    return installed && Runtime.defaultOptions.logger === installed ? installed : undefined;
  installed ??= new TaskFailureLogger(new QuietLogger());
  Runtime.install({
    logger: installed,
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  });
  return installed;
}
