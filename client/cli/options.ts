/** Options several commands share, declared once. */
import { formatDuration } from '../../core/durations';
import { agentKeyProblem, DEFAULT_TASK_QUEUE } from '../../protocol/agent';
import type { OptionSpec } from './spec';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_NAMESPACE,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_TEMPORAL_ADDRESS,
} from './temporal';

/** The agent key (`--agent`), checked by every command that takes it before anything is contacted. */
export const agentOption = {
  type: 'string',
  value: '<key>',
  description: 'the agent (its agentKey in the agents file)',
  env: 'AMSFLOW_AGENT',
  default: 'default',
  check: agentKeyProblem,
} as const satisfies OptionSpec;

export const jsonOption = {
  type: 'boolean',
  description: 'print JSON instead of lines for a person',
} as const;

/** The agent's workflow task queue: the worker's `AMSFLOW_TASK_QUEUE`. */
export function taskQueue(env: NodeJS.ProcessEnv): string {
  return env.AMSFLOW_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
}

/** What every command that talks to Temporal reads, for `--help`: name and meaning. */
export const TEMPORAL_ENVIRONMENT: [string, string][] = [
  ['TEMPORAL_ADDRESS', `the Temporal frontend, host:port (default ${DEFAULT_TEMPORAL_ADDRESS})`],
  ['TEMPORAL_NAMESPACE', `its namespace (default "${DEFAULT_NAMESPACE}")`],
  ['TEMPORAL_API_KEY', 'an API key (Temporal Cloud, or a server with JWT authorization); turns TLS on'],
  ['TEMPORAL_TLS', '`true` for TLS with the system roots (on by itself with an API key or TLS_* below)'],
  [
    'TEMPORAL_TLS_*',
    'SERVER_CA_CERT_PATH, CLIENT_CERT_PATH, CLIENT_KEY_PATH (or *_DATA), SERVER_NAME: TLS and mTLS',
  ],
  [
    'TEMPORAL_PROFILE',
    'a profile of temporal.toml (TEMPORAL_CONFIG_FILE, else ~/.config/temporalio/temporal.toml, read only when one of the two is set); or --profile <name>',
  ],
  ['AMSFLOW_TASK_QUEUE', `the workers' task queue (default "${DEFAULT_TASK_QUEUE}")`],
  [agentOption.env, `the agent when --agent is not given (default "${agentOption.default}")`],
  [
    'AMSFLOW_CONNECT_TIMEOUT',
    `how long to try to reach Temporal (default ${formatDuration(DEFAULT_CONNECT_TIMEOUT_MS)})`,
  ],
  [
    'AMSFLOW_QUERY_TIMEOUT',
    `how long to wait for a workflow's answer: state, the listings, a cancel, a resume (default ${formatDuration(DEFAULT_QUERY_TIMEOUT_MS)})`,
  ],
  ['AMSFLOW_ENCRYPTION_KEYS', "the workers' keys, when payloads are encrypted"],
];

/** The duration format, for `--help`. */
export const DURATIONS = 'durations: 1500ms, 15s, 10m, 2h, 3d';
