/** What `runAmsflow` (worker/run.ts) answers, and what its start found under the data dir. */
import type { RestoredState } from '../simulator';

export interface RunningAmsflow {
  temporalAddress: string;
  temporalUiUrl?: string;
  /** The embedded simulator's web chat, when it runs. */
  chatUrl?: string;
  simulatorUrl?: string;
  /** `/metrics`, `/healthz` and `/readyz` are served here (unless `AMSFLOW_METRICS_PORT=off`). */
  metricsUrl?: string;
  /** The model of model turns (`openai:gpt-4o-mini`), when one is configured. */
  model?: string;
  taskQueue: string;
  /** The agents served, with the service each one talks to. */
  agents: { agentKey: string; baseUrl?: string }[];
  /** What this start found under the data dir: a fresh start or a resumed one. */
  resume: ResumeInfo;
  /** Resolves when every worker has stopped (after {@link shutdown} or a signal). */
  done: Promise<void>;
  /** Stops the workers (long polls cancelled, in-flight sends finished), then everything embedded. */
  shutdown(): Promise<void>;
}

/** What `npm start` found under the data dir. */
export interface ResumeInfo {
  /** The data dir (absolute). */
  dataDir: string;
  /** Where the demo keeps its conversation and its Temporal data, with the embedded simulator. */
  demoDir?: string;
  /** The embedded simulator's state file and what was in it. */
  chat?: RestoredState;
  /** The embedded server's database, when it runs. */
  temporalDb?: string;
  /** Whether that database was there already (a resumed Temporal). */
  temporalResumed: boolean;
}

/** Where `runAmsflow` prints its lines. */
export type Log = (line: string) => void;
