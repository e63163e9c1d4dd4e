/**
 * amsflow's logger: a Temporal `Logger` (installed as the runtime's, so the SDK's workflow and
 * activity logs pass through it with their workflowId/runId) writing JSON lines or pretty lines
 * to a stream, at a minimum level, with every secret redacted and message bodies kept only at
 * debug level when `AMSFLOW_LOG_BODIES=1`.
 */
import type { LogLevel, LogMetadata } from '@temporalio/common';
import { redact, redactText } from '../../core/redact';
import { LevelLogger, LOG_LEVEL_RANK as RANK } from './level-logger';

/** `AMSFLOW_LOG_FORMAT`. */
export type LogFormat = 'json' | 'pretty';
/** `AMSFLOW_LOG_LEVEL`. */
export type AmsflowLogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_OF: Record<AmsflowLogLevel, LogLevel> = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
};
/** SDK notices that are expected on amsflow's single-purpose workers: demoted to debug. */
const EXPECTED = /^No (activities|workflows|Nexus services) registered/;
/** Meta keys that may hold message bodies. */
const BODY_KEYS = ['body', 'bodies', 'text'];
/** Workflow ids amsflow derives: `agent:<key>…`, `reminders:<key>`, `approval:<key>:<id>`. */
const AGENT_IN_ID = /^(?:agent|reminders|approval):([A-Za-z0-9][A-Za-z0-9._-]{0,99})(?::|$)/;

/** Where lines go (a `process.stdout`, or a test's collector). */
export interface LineSink {
  write(line: string): unknown;
}

/** Options of {@link AmsflowLogger}. */
export interface LoggerOptions {
  format: LogFormat;
  level: AmsflowLogLevel;
  /** Keep message bodies (at debug level only). */
  bodies?: boolean;
  /** Default: `process.stderr` for warnings and errors, `process.stdout` otherwise. */
  stream?: LineSink;
  now?: () => Date;
}

/** A Temporal `Logger` writing redacted structured lines. */
export class AmsflowLogger extends LevelLogger {
  private readonly min: number;

  constructor(private readonly options: LoggerOptions) {
    super();
    this.min = RANK[LEVEL_OF[options.level]];
  }

  /** Whether a line at `level` would be written. */
  enabled(level: LogLevel): boolean {
    return RANK[level] >= this.min;
  }

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    if (EXPECTED.test(message) && level !== 'ERROR') level = 'DEBUG';
    if (level === 'TRACE' || !this.enabled(level)) return;
    const line = this.format(level, message, meta);
    const stream = this.options.stream ?? (RANK[level] >= RANK.WARN ? process.stderr : process.stdout);
    stream.write(`${line}\n`);
  }

  private format(level: LogLevel, message: string, meta: LogMetadata): string {
    // The SDK adds an activity's task token to its lines (the core's as `task_token`): a
    // capability to complete it, never logged. Nested ones and ones in text: core/redact.ts.
    const {
      workflowId,
      runId,
      workflowRunId,
      agentKey,
      taskToken: _token,
      task_token: _coreToken,
      ...rest
    } = meta as Record<string, unknown>;
    const keepBodies = this.options.bodies === true && level === 'DEBUG';
    if (!keepBodies) for (const key of BODY_KEYS) delete rest[key];
    const wfId = typeof workflowId === 'string' ? workflowId : undefined;
    const agent = typeof agentKey === 'string' ? agentKey : wfId?.match(AGENT_IN_ID)?.[1];
    const head = {
      time: (this.options.now?.() ?? new Date()).toISOString(),
      level: level.toLowerCase(),
      msg: redactText(message),
      ...(agent ? { agentKey: agent } : {}),
      ...(wfId ? { workflowId: wfId } : {}),
      ...((runId ?? workflowRunId) ? { runId: runId ?? workflowRunId } : {}),
    };
    const fields = redact(rest) as Record<string, unknown>;
    if (this.options.format === 'json') return safeJson({ ...head, ...fields });
    const context = [agent && `agent=${agent}`, wfId && `workflow=${wfId}`].filter(Boolean).join(' ');
    const tail = Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : '';
    return `${head.time} [${level}] ${head.msg}${context ? ` (${context})` : ''}${tail}`;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify({ unserialisable: String(value) });
  }
}
