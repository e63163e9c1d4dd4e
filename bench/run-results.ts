/**
 * The shape of a run's results (`bench/results/<date>[-quick].json`): what the console, the
 * plots and the report's generated section are made of. A part that could not run is
 * `{ error }`; one that was not asked for is absent.
 */
import type { ClientFigures } from './client-micro';
import type { CostRow } from './cost';
import type { FleetResult } from './fleet';
import type { LatencyResult, ServerKind } from './latency';
import type { LiveChatResult } from './live-chat';
import type { BenchPlan } from './plan';
import type { RecoveryResult } from './recovery';
import type { SendBudgetResult } from './send-budget';
import type { SoakResult } from './soak';
import type { ThroughputResult } from './throughput';
import type { TracingResult } from './tracing-cost';

export type Failed = { error: string };
export type Maybe<T> = T | Failed | undefined;

/** The section if it ran and did not fail. */
export const ok = <T>(v: Maybe<T>): T | undefined =>
  v !== undefined && !(typeof v === 'object' && v !== null && 'error' in v) ? v : undefined;

/** The parts measured on each server kind. */
export interface ServerResults {
  kind: ServerKind;
  /** What this server is (bench/latency.ts, SERVER_KINDS). */
  server: string;
  latency: Maybe<LatencyResult>;
  throughput: Maybe<ThroughputResult>;
  liveChat: Maybe<LiveChatResult>;
  recovery: Maybe<RecoveryResult>;
  /** The same with the worker compiled, as the image runs it (absent in results before 2026-11-29). */
  recoveryCompiled?: Maybe<RecoveryResult>;
  /** Tracing's cost: an echo with tracing off and on (absent in results before 2026-12-06). */
  tracing?: Maybe<TracingResult>;
  /**
   * The fleet on the stock server (`plan.fleet.stockAgentCounts`; the embedded server's is
   * {@link OnceResults.fleet}); absent in results before 2026-12-07 and on the embedded server.
   */
  fleet?: Maybe<FleetResult>;
}

/** The parts measured once, on the embedded server (their figures do not depend on the server's disk). */
export interface OnceResults {
  cost?: Maybe<CostRow[]>;
  sendBudget?: Maybe<SendBudgetResult>;
  fleet?: Maybe<FleetResult>;
  soak?: Maybe<SoakResult>;
  /** The throughput ladder of plain loops (no Temporal): the simulator's and the client's share. */
  plainThroughput?: Maybe<ThroughputResult>;
}

export interface BenchResults extends OnceResults, ClientFigures {
  at: string;
  node: string;
  mode: 'quick' | 'full';
  command: string;
  machine: { cpus: number; model: string; memoryGb: number };
  plan: BenchPlan;
  servers: Partial<Record<ServerKind, ServerResults>>;
  memoryMb: { rss: number; heapUsed: number };
}

/** A run of one part alone (`--only tracing`): the run and that part on each server. */
export interface OnlyResults extends Pick<
  BenchResults,
  'at' | 'node' | 'mode' | 'command' | 'machine' | 'plan'
> {
  only: NonNullable<BenchPlan['only']>;
  /** Tracing's part, and the latency section beside it: the bench's usual figure, tracing off. */
  servers: Partial<Record<ServerKind, Pick<ServerResults, 'kind' | 'server' | 'latency' | 'tracing'>>>;
}
