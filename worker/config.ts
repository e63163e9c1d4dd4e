/**
 * Worker configuration from environment variables, validated with zod. A bad or missing value
 * is reported by name, all at once, without the value itself (it may be a token).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { Limits } from '../messaging/limits';
import { DEFAULT_TASK_QUEUE } from '../protocol/agent';
import type { AgentTuning } from '../protocol';
import { isTimeZone } from '../core/zoned-time';
import { EncryptionKeysSchema, EncryptionStrictSchema, type EncryptionKey } from '../codec/keys';
import { readBotConfig } from './bot-config';
import { modelConfigOf, type ModelConfig } from './model-config';
import { AgentConfigSchema, readAgentsFile, type AgentConfig } from './agents-file';
import { BaseUrlSchema, tokenProblem } from './config-checks';
import {
  hostNames,
  jsonObject,
  mediaOrigins,
  LimitsSchema,
  nonEmpty,
  port,
  TuningSchema,
} from './config-schemas';
import { DEPLOY_ENV, deployConfigOf, type DeployConfig } from './config-deploys';
import { AmsflowError } from '../core/amsflow-error';
import type { ObservabilityConfig } from './observability/observability-config';
import { tracesEndpoint, tracingModeOf } from './observability/tracing-mode';
import { loadTemporalProfile, TemporalProfileError, type TemporalProfile } from '../tools/temporal-profile';

export type { ObservabilityConfig } from './observability/observability-config';
import { AmsflowErrorCodes } from '../core/error-codes';

export { MAX_BOT_CONFIG_BYTES } from './bot-config';

const projectRoot = resolve(__dirname, '..');

export { AgentConfigSchema, agentTimeZones, type AgentConfig } from './agents-file';

/** The environment the worker reads; exported for the start's port check (worker/ports.ts). */
export const EnvSchema = z.object({
  AMS_TOKEN: nonEmpty
    .superRefine((token, ctx) => {
      const problem = tokenProblem(token);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    })
    .optional(),
  AMS_BASE_URL: BaseUrlSchema.optional(),
  /** Origins besides the service's that its media URLs may point at (the token goes there). */
  AMSFLOW_MEDIA_ORIGINS: mediaOrigins.optional(),
  AMSFLOW_AGENT: AgentConfigSchema.shape.agentKey.default('default'),
  AMSFLOW_AGENTS_FILE: nonEmpty.optional(),
  TEMPORAL_ADDRESS: nonEmpty.optional(),
  TEMPORAL_NAMESPACE: nonEmpty.default('default'),
  AMSFLOW_TASK_QUEUE: nonEmpty.default(DEFAULT_TASK_QUEUE),
  AMSFLOW_WORKFLOWS: nonEmpty.optional(),
  AMSFLOW_WORKFLOW_BUNDLE: nonEmpty.optional(),
  AMSFLOW_BOT_CONFIG: nonEmpty.optional(),
  AMSFLOW_ACTIVITIES: nonEmpty.optional(),
  AMSFLOW_TIMEZONE: nonEmpty.refine(isTimeZone, 'is not an IANA time zone (like Europe/Berlin)').optional(),
  AMSFLOW_LIMITS: jsonObject(LimitsSchema).optional(),
  AMSFLOW_TUNING: jsonObject(TuningSchema).optional(),
  AMSFLOW_FLEET_AGENTS: z.coerce.number().int().positive().optional(),
  /**
   * What the embedded parts keep between runs (relative to the current directory): the demo's
   * chat and its Temporal data in `demo/` (delete it to start the demo afresh), the embedded
   * server's data in `temporal.db` when serving the real service. See worker/run.ts.
   */
  AMSFLOW_DATA_DIR: nonEmpty.default('.amsflow'),
  // Fixed by default, so that the chat and UI addresses stay the same from one start to the next.
  AMSFLOW_DEV_SERVER_PORT: port.default(7233),
  /**
   * The embedded server's web UI on 127.0.0.1, behind amsflow's Host and Origin check (worker/
   * checked-proxy.ts): a port, `0` for any free port, or `off` for no UI.
   */
  AMSFLOW_DEV_SERVER_UI_PORT: z
    .union([z.literal('off'), port], {
      errorMap: () => ({ message: 'must be a port (0 to 65535) or off' }),
    })
    .default(8233),
  AMSFLOW_SIMULATOR_PORT: port.default(8080),
  /**
   * The port of `/metrics`, `/healthz` and `/readyz` (worker/observability): a port, `0` for any
   * free port, or `off` for no endpoint (and no Temporal runtime metrics).
   */
  AMSFLOW_METRICS_PORT: z
    .union([z.literal('off'), port], {
      errorMap: () => ({ message: 'must be a port (0 to 65535) or off' }),
    })
    .default(9464),
  /** The interface the metrics endpoint listens on: loopback by default; `0.0.0.0` in a container. */
  AMSFLOW_METRICS_HOST: nonEmpty.default('127.0.0.1'),
  /** Host names the endpoint is scraped by besides its address (a container's service name). */
  AMSFLOW_METRICS_ALLOWED_HOSTS: hostNames.optional(),
  /** `pretty` (lines for a terminal, the default) or `json` (one JSON object per line). */
  AMSFLOW_LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** The lowest level logged; default `info` with json lines, `warn` with pretty ones. */
  AMSFLOW_LOG_LEVEL: z
    .string()
    .trim()
    .toLowerCase()
    .transform((level) => (level === 'trace' ? 'debug' : level))
    .pipe(z.enum(['debug', 'info', 'warn', 'error']))
    .optional(),
  /** `1`: log message bodies, at debug level only. Off by default. */
  AMSFLOW_LOG_BODIES: z.enum(['0', '1', 'true', 'false']).default('0'),
  AMSFLOW_HEALTH_CHECK_MS: z.coerce.number().int().min(100).default(15_000),
  /**
   * `otlp`: export OpenTelemetry traces over OTLP/HTTP (the standard `OTEL_*` variables say where);
   * `off`: none. Unset: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set.
   */
  AMSFLOW_TRACING: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['off', 'otlp']))
    .optional(),
  AMSFLOW_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).optional(),
  /** `id:base64key,...` (current first): encryption at rest (codec/). Unset: off. */
  AMSFLOW_ENCRYPTION_KEYS: EncryptionKeysSchema.optional(),
  ...DEPLOY_ENV,
  /** `1`: decode only payloads encrypted and bound by the keys (codec/encryption-codec.ts). */
  AMSFLOW_ENCRYPTION_STRICT: EncryptionStrictSchema.optional(),
});

export interface WorkerConfig {
  /** Agents to serve; empty tokens mean "use the embedded simulator". */
  agents: AgentConfig[];
  /** `AMSFLOW_AGENTS_FILE`, read again when it changes (worker/fleet-reload.ts). */
  agentsFile?: { path: string; defaultBaseUrl?: string };
  /** True when no token was given: the worker starts the embedded simulator. */
  embeddedSimulator: boolean;
  /**
   * The Temporal to connect to (tools/temporal-profile.ts: a profile of temporal.toml and the
   * `TEMPORAL_*` variables); undefined: none configured, the embedded dev server.
   */
  temporal?: TemporalProfile;
  /** `temporal.address`, or undefined for the embedded dev server. */
  temporalAddress?: string;
  namespace: string;
  taskQueue: string;
  /** The bot module: its handler workflows (amsflow adds its own at bundling). Default: the reference bot. */
  workflowsPath: string;
  /** A prebuilt bundle (`bundleWorkflowCode` output) used instead of bundling `workflowsPath`. */
  workflowBundlePath?: string;
  /** The bot's configuration (`AMSFLOW_BOT_CONFIG`), handed to every handler as `ctx.config`. */
  botConfig?: unknown;
  /** Module of the bot's own activities (`AMSFLOW_ACTIVITIES`), served on the workflow task queue. */
  activitiesPath?: string;
  /** The human's IANA time zone (`AMSFLOW_TIMEZONE`): the default of new reminders. Unset: UTC. */
  timeZone?: string;
  limits: Partial<Limits>;
  tuning: AgentTuning;
  /** `AMSFLOW_MEDIA_ORIGINS`: where media downloads may go besides the service's origin. */
  mediaOrigins?: string[];
  /** `AMSFLOW_MAX_CACHED_WORKFLOWS`: the workflow cache's bound (default: follows the heap). */
  maxCachedWorkflows?: number;
  /** Agents in the whole fleet, for the task-queue ceilings. Default: the agents of this worker. */
  fleetAgents: number;
  /** Absolute `AMSFLOW_DATA_DIR`: where the embedded server and simulator keep their data. */
  dataDir: string;
  devServerPort: number;
  /** The embedded server's web UI port (its checked proxy), or `off`. */
  devServerUiPort: number | 'off';
  simulatorPort: number;
  /** Metrics, health and logs. */
  observability: ObservabilityConfig;
  /** `AMSFLOW_ENCRYPTION_KEYS` (current first): payloads encrypted at rest. Unset: no encryption. */
  encryptionKeys?: EncryptionKey[];
  /** The build this worker is, its promotion and its exit (worker/config-deploys.ts). */
  deploy: DeployConfig;
  /** `AMSFLOW_ENCRYPTION_STRICT`: refuse unencrypted and unbound payloads. */
  encryptionStrict?: boolean;
  /** `AMSFLOW_MODEL` (with its key) or `AMSFLOW_MODEL_MODULE`: the model of model turns. Unset: none. */
  model?: ModelConfig;
}

/** Every problem found in the environment, by variable name. */
export class ConfigError extends AmsflowError {
  readonly code = AmsflowErrorCodes.config;
  constructor(readonly problems: string[]) {
    super(`Invalid amsflow configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function issues(prefix: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '';
    const name = prefix && path ? `${prefix} ${path}` : prefix || path;
    return `${name}: ${issue.message}`;
  });
}

type Env = z.infer<typeof EnvSchema>;

/** The environment parsed; a bad variable is a problem, and its default stands in for it. */
function parseEnv(env: NodeJS.ProcessEnv, problems: string[]): Env {
  const parsed = EnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  // Checked again without the bad variables (their defaults instead), so that the checks below
  // (the agents file, the modules) still run: every problem is in the one message.
  problems.push(...issues('', parsed.error));
  const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0])));
  const again = EnvSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([name]) => !bad.has(name))),
  );
  if (!again.success) throw new ConfigError(problems);
  return again.data;
}

/** The agents served: from the agents file, from `AMS_TOKEN`, or the embedded simulator's one. */
function agentsOf(e: Env, env: NodeJS.ProcessEnv, problems: string[]) {
  if (e.AMSFLOW_AGENTS_FILE) {
    const read = readAgentsFile(e.AMSFLOW_AGENTS_FILE, env, e.AMS_BASE_URL);
    problems.push(...read.problems);
    return { agents: read.agents, embeddedSimulator: false };
  }
  if (e.AMS_TOKEN) {
    const agents = [{ agentKey: e.AMSFLOW_AGENT, token: e.AMS_TOKEN, baseUrl: e.AMS_BASE_URL }];
    return { agents, embeddedSimulator: false };
  }
  // (An AMS_TOKEN that is set but bad is reported already.)
  if (e.AMS_BASE_URL && env.AMS_TOKEN === undefined)
    problems.push('AMS_TOKEN: required when AMS_BASE_URL is set');
  return { agents: [{ agentKey: e.AMSFLOW_AGENT, token: '' }], embeddedSimulator: true };
}

/** The bot's modules and configuration, checked here so that a wrong path stops the start early. */
function modulesOf(e: Env, problems: string[]) {
  let workflowsPath = join(projectRoot, 'examples', 'reference', 'bot');
  try {
    // The bundler needs the file itself (.ts under ts-node, .js once built).
    workflowsPath = require.resolve(e.AMSFLOW_WORKFLOWS ? resolve(e.AMSFLOW_WORKFLOWS) : workflowsPath);
  } catch {
    problems.push(`AMSFLOW_WORKFLOWS: no module at ${e.AMSFLOW_WORKFLOWS ?? workflowsPath}`);
  }
  const botConfig =
    e.AMSFLOW_BOT_CONFIG === undefined ? undefined : readBotConfig(e.AMSFLOW_BOT_CONFIG, problems);
  let activitiesPath: string | undefined;
  if (e.AMSFLOW_WORKFLOW_BUNDLE && !existsSync(resolve(e.AMSFLOW_WORKFLOW_BUNDLE))) {
    problems.push(`AMSFLOW_WORKFLOW_BUNDLE: no file at ${e.AMSFLOW_WORKFLOW_BUNDLE}`);
  }
  if (e.AMSFLOW_ACTIVITIES) {
    try {
      activitiesPath = require.resolve(resolve(e.AMSFLOW_ACTIVITIES));
    } catch {
      problems.push(`AMSFLOW_ACTIVITIES: no module at ${e.AMSFLOW_ACTIVITIES}`);
    }
  }
  const workflowBundlePath = e.AMSFLOW_WORKFLOW_BUNDLE ? resolve(e.AMSFLOW_WORKFLOW_BUNDLE) : undefined;
  return { workflowsPath, botConfig, activitiesPath, workflowBundlePath };
}

/** Reads the configuration from `env` (default `process.env`); throws {@link ConfigError}. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const problems: string[] = [];
  const e = parseEnv(env, problems);
  const { agents, embeddedSimulator } = agentsOf(e, env, problems);
  const modules = modulesOf(e, problems);
  const model = modelConfigOf(env, problems);
  const temporal = temporalOf(env, problems);
  const deploy = deployConfigOf(e, temporal === undefined, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...modules,
    ...(model ? { model } : {}),
    timeZone: e.AMSFLOW_TIMEZONE,
    agents,
    ...(e.AMSFLOW_AGENTS_FILE
      ? { agentsFile: { path: e.AMSFLOW_AGENTS_FILE, defaultBaseUrl: e.AMS_BASE_URL } }
      : {}),
    embeddedSimulator,
    temporalAddress: temporal?.address,
    ...(temporal ? { temporal } : {}),
    namespace: temporal?.namespace ?? e.TEMPORAL_NAMESPACE,
    taskQueue: e.AMSFLOW_TASK_QUEUE,
    limits: e.AMSFLOW_LIMITS ?? {},
    tuning: e.AMSFLOW_TUNING ?? {},
    mediaOrigins: e.AMSFLOW_MEDIA_ORIGINS,
    fleetAgents: e.AMSFLOW_FLEET_AGENTS ?? agents.length,
    ...(e.AMSFLOW_MAX_CACHED_WORKFLOWS ? { maxCachedWorkflows: e.AMSFLOW_MAX_CACHED_WORKFLOWS } : {}),
    dataDir: resolve(e.AMSFLOW_DATA_DIR),
    devServerPort: e.AMSFLOW_DEV_SERVER_PORT,
    devServerUiPort: e.AMSFLOW_DEV_SERVER_UI_PORT,
    simulatorPort: e.AMSFLOW_SIMULATOR_PORT,
    observability: {
      metricsPort: e.AMSFLOW_METRICS_PORT,
      metricsHost: e.AMSFLOW_METRICS_HOST,
      ...(e.AMSFLOW_METRICS_ALLOWED_HOSTS ? { metricsAllowedHosts: e.AMSFLOW_METRICS_ALLOWED_HOSTS } : {}),
      logFormat: e.AMSFLOW_LOG_FORMAT ?? 'pretty',
      logLevel: e.AMSFLOW_LOG_LEVEL ?? (e.AMSFLOW_LOG_FORMAT === 'json' ? 'info' : 'warn'),
      logBodies: e.AMSFLOW_LOG_BODIES === '1' || e.AMSFLOW_LOG_BODIES === 'true',
      healthCheckMs: e.AMSFLOW_HEALTH_CHECK_MS,
      ...(tracingModeOf(e.AMSFLOW_TRACING, env) === 'otlp'
        ? { tracing: 'otlp' as const, tracesEndpoint: tracesEndpoint(env) }
        : {}),
    },
    encryptionKeys: e.AMSFLOW_ENCRYPTION_KEYS?.length ? e.AMSFLOW_ENCRYPTION_KEYS : undefined,
    encryptionStrict: e.AMSFLOW_ENCRYPTION_STRICT,
    deploy,
  };
}

/** The Temporal profile `env` configures, or undefined (the embedded server); a bad setting is a problem. */
function temporalOf(env: NodeJS.ProcessEnv, problems: string[]): TemporalProfile | undefined {
  try {
    return loadTemporalProfile(env);
  } catch (err) {
    if (!(err instanceof TemporalProfileError)) throw err;
    problems.push(err.message);
    return undefined;
  }
}
