/**
 * What `/readyz` answers: ready only while the process runs its workers (each RUNNING, no
 * poller FAILED), Temporal answers on the workers' connection, and every agent's last health
 * check (agent-health.ts) says ok. Otherwise not ready, with why (per agent: the fix).
 */
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { AgentHealth } from './agent-health';

/** The answer of a readiness check (the body of `/readyz`). */
export interface ReadinessReport {
  ready: boolean;
  /** Why not, when not ready. */
  reason?: string;
  workers?: { taskQueue: string; state: string; workflowPoller: string; activityPoller: string }[];
  /** Each agent's last health check (agent-health.ts), once one has run. */
  agents?: AgentHealth[];
}

/** How long Temporal may take to answer a readiness check. */
const TEMPORAL_CHECK_MS = 2_000;

/** The process's readiness: starting, then running (checked live), then stopping. */
export class Readiness {
  private phase: 'starting' | 'running' | 'stopping' = 'starting';
  private workers: Worker[] = [];
  private connection?: Pick<NativeConnection, 'workflowService'>;
  private agentHealth: () => AgentHealth[] = () => [];

  /** Where the agents' health comes from: not ready while one of them is not `ok`. */
  watchAgents(latest: () => AgentHealth[]): void {
    this.agentHealth = latest;
  }

  /** The workers run: from now on readiness is checked against them and their connection. */
  running(workers: Worker[], connection: Pick<NativeConnection, 'workflowService'>): void {
    this.workers = workers;
    this.connection = connection;
    if (this.phase === 'starting') this.phase = 'running';
  }

  /** Shutdown has begun: not ready any more, for good. */
  stopping(): void {
    this.phase = 'stopping';
  }

  async check(): Promise<ReadinessReport> {
    if (this.phase === 'starting')
      return { ready: false, reason: 'starting: the workers are not running yet' };
    if (this.phase === 'stopping') return { ready: false, reason: 'shutting down' };
    const workers = this.workers.map((w) => {
      const status = w.getStatus();
      return {
        taskQueue: w.options.taskQueue,
        state: status.runState,
        workflowPoller: status.workflowPollerState,
        activityPoller: status.activityPollerState,
      };
    });
    const bad = workers.find(
      (w) => w.state !== 'RUNNING' || w.workflowPoller === 'FAILED' || w.activityPoller === 'FAILED',
    );
    if (bad) {
      return { ready: false, reason: `the worker of task queue ${bad.taskQueue} is ${bad.state}`, workers };
    }
    const problem = await this.temporalProblem();
    if (problem) return { ready: false, reason: `Temporal does not answer: ${problem}`, workers };
    const agents = this.agentHealth();
    const withAgents = agents.length > 0 ? { workers, agents } : { workers };
    const sick = agents.filter((a) => a.status !== 'ok');
    if (sick.length > 0) {
      const reason = sick.map((a) => `agent ${a.agentKey} is ${a.status}: ${a.reason ?? ''}`).join('; ');
      return { ready: false, reason, ...withAgents };
    }
    return { ready: true, ...withAgents };
  }

  private async temporalProblem(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.connection!.workflowService.getSystemInfo({}),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${TEMPORAL_CHECK_MS} ms`)),
            TEMPORAL_CHECK_MS,
          );
        }),
      ]);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    } finally {
      clearTimeout(timer);
    }
  }
}
