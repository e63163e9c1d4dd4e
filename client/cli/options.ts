/** Options several commands share, declared once. */
import { DEFAULT_TASK_QUEUE } from '../../protocol/queues';

/** The agent key (`--agent`), checked by every command that takes it before anything is contacted. */
export const agentOption = {
  type: 'string',
  value: '<key>',
  description: 'the agent (its agentKey in the agents file)',
  env: 'AMSFLOW_AGENT',
  default: 'default',
} as const;

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
  ['TEMPORAL_ADDRESS', 'the Temporal frontend, host:port (default 127.0.0.1:7233)'],
  ['TEMPORAL_NAMESPACE', 'its namespace (default "default")'],
  ['AMSFLOW_TASK_QUEUE', 'the workers\' task queue (default "amsflow")'],
  ['AMSFLOW_AGENT', 'the agent when --agent is not given (default "default")'],
  ['AMSFLOW_CONNECT_TIMEOUT', 'how long to try to reach Temporal (default 2s)'],
  ['AMSFLOW_ENCRYPTION_KEYS', "the workers' keys, when payloads are encrypted"],
];

/** The duration format, for `--help`. */
export const DURATIONS = 'durations: 1500ms, 15s, 10m, 2h, 3d';
