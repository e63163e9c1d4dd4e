/**
 * Per-agent health, checked every `intervalMs` by the worker that serves the agents: nothing
 * halts silently. For each agent it asks Temporal two things: DescribeWorkflowExecution (is the
 * agent workflow running; is its pending workflow task on attempt 2 or later, i.e. failing and
 * being retried) and the `amsflow.state` query (stopped by a refusal; the time by which its next
 * poll should have ended). `/readyz` reports the result per agent and `amsflow_agent_*` gauges
 * carry it (docs/OPERATIONS.md has the alert). The judgement is pure ({@link judgeAgent}).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { agentWorkflowId } from '../../protocol/ids';
import { stateQuery } from '../../protocol/messages';
import { askAgainOnRebuild } from '../../protocol/queries';
import type { AgentStateView } from '../../protocol';
import type { AmsflowMetrics } from './amsflow-metrics';
import type { AgentHealth } from './health-status';

export { AGENT_HEALTH_STATUSES, type AgentHealth, type AgentHealthStatus } from './health-status';

/** What Temporal said about the agent workflow. */
export interface AgentObservation {
  /** false: not found, or closed (terminated, failed, timed out). */
  running: boolean;
  /** How it ended, when it did. */
  closedStatus?: string;
  workflowTaskAttempt?: number;
  /** The state query's answer, or why it failed. */
  state: AgentStateView | { error: string };
}

/** A pending workflow task on this attempt or later keeps failing. */
export const FAILING_TASK_ATTEMPT = 2;

/** Judges one agent from what Temporal said, at `now` (epoch ms); `graceMs` past its poll's due time. */
export function judgeAgent(
  agentKey: string,
  seen: AgentObservation,
  now: number,
  graceMs: number,
): AgentHealth {
  const base = { agentKey, checkedAt: new Date(now).toISOString() };
  const id = agentWorkflowId(agentKey);
  if (!seen.running) {
    const how = seen.closedStatus ? `its workflow ${id} is ${seen.closedStatus}` : `no workflow ${id}`;
    return { ...base, status: 'not_running', reason: `${how}: restart the worker (it starts the agent)` };
  }
  const attempt = seen.workflowTaskAttempt;
  const withAttempt = attempt === undefined ? base : { ...base, workflowTaskAttempt: attempt };
  if (attempt !== undefined && attempt >= FAILING_TASK_ATTEMPT) {
    return {
      ...withAttempt,
      status: 'task_failing',
      reason:
        `the workflow task of ${id} keeps failing (attempt ${attempt}): the agent neither polls nor ` +
        `sends; see the worker's log and the workflow's history (temporal workflow show -w ${id})`,
    };
  }
  if ('error' in seen.state) {
    return {
      ...withAttempt,
      status: 'unknown',
      reason: `the state query of ${id} failed: ${seen.state.error}`,
    };
  }
  const state = seen.state;
  if (state.refusal) {
    return { ...withAttempt, status: state.refusal.status, reason: state.refusal.fix };
  }
  const dueBy = state.poll?.dueBy === undefined ? undefined : Date.parse(state.poll.dueBy);
  const overdueMs = dueBy === undefined ? 0 : Math.max(0, now - dueBy);
  const overdue = { ...withAttempt, pollOverdueSeconds: Math.round(overdueMs / 1000) };
  if (overdueMs > graceMs) {
    return {
      ...overdue,
      status: 'not_polling',
      reason:
        `agent ${agentKey} has not polled within its cadence (its poll was due by ${state.poll.dueBy}): ` +
        'is a worker serving its activity task queues? See the worker log',
    };
  }
  return { ...overdue, status: 'ok' };
}

export interface AgentHealthOptions {
  client: Client;
  agentKeys: string[];
  metrics?: AmsflowMetrics;
  /** Between checks. Default 15 s (`AMSFLOW_HEALTH_CHECK_MS`). */
  intervalMs?: number;
  /** Allowed lateness of a poll past its due time. Default 15 s. */
  graceMs?: number;
  /** Longest wait for Temporal's answers of one check. Default 5 s. */
  timeoutMs?: number;
}

/** Checks the agents of a worker every `intervalMs`; {@link latest} is what `/readyz` reports. */
export class AgentHealthMonitor {
  private results: AgentHealth[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<AgentHealth[]>;
  private abort = new AbortController();

  constructor(private readonly options: AgentHealthOptions) {}

  /** The last check's results (empty before the first check ends). */
  latest(): AgentHealth[] {
    return this.results;
  }

  /** Checks at once, then every interval, until {@link stop}. */
  start(): this {
    const every = this.options.intervalMs ?? 15_000;
    void this.check().catch(() => undefined);
    this.timer = setInterval(() => void this.check().catch(() => undefined), every);
    this.timer.unref();
    return this;
  }

  /**
   * Stops the checks and cancels the one in flight; resolves once it has ended. Await it before
   * the client's connection closes: a call the SDK is still retrying then would throw "Channel has
   * been shut down" from a timer, an uncaught error that ended a clean Ctrl-C with exit 1.
   */
  stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.abort.abort();
    return (this.running ?? Promise.resolve()).then(
      () => undefined,
      () => undefined,
    );
  }

  /** One check of every agent (concurrent checks share one). */
  check(): Promise<AgentHealth[]> {
    this.running ??= this.checkAll().finally(() => (this.running = undefined));
    return this.running;
  }

  private async checkAll(): Promise<AgentHealth[]> {
    const grace = this.options.graceMs ?? 15_000;
    const results = await Promise.all(
      this.options.agentKeys.map(async (key) => judgeAgent(key, await this.observe(key), Date.now(), grace)),
    );
    this.results = results;
    this.options.metrics?.recordAgentHealth(results);
    return results;
  }

  private async observe(agentKey: string): Promise<AgentObservation> {
    const { client } = this.options;
    const deadline = Date.now() + (this.options.timeoutMs ?? 5_000);
    const handle = client.workflow.getHandle(agentWorkflowId(agentKey));
    let description;
    try {
      description = await this.call(deadline, () => handle.describe());
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { running: false, state: { error: 'not found' } };
      return { running: true, state: { error: message(err) } };
    }
    if (description.status.name !== 'RUNNING') {
      return { running: false, closedStatus: description.status.name, state: { error: 'closed' } };
    }
    const attempt = description.raw.pendingWorkflowTask?.attempt ?? undefined;
    const state = await this.call(deadline, () => askAgainOnRebuild(() => handle.query(stateQuery))).catch(
      (err: unknown) => ({
        error: message(err),
      }),
    );
    return { running: true, ...(attempt ? { workflowTaskAttempt: attempt } : {}), state };
  }

  /**
   * A call to Temporal that ends by `deadline`, or at once when the monitor stops. Each call gets
   * its own signal, tied to the monitor's while it runs: the SDK adds a listener to the signal of
   * every call and never removes it, so one long-lived signal would gather two per agent per check
   * (a leak, and Node's MaxListenersExceededWarning on `npm start` after a minute).
   */
  private async call<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
    const { connection } = this.options.client;
    const stopped = this.abort.signal;
    if (stopped.aborted) throw new Error('agent health checks stopped');
    const own = new AbortController();
    const stop = () => own.abort();
    stopped.addEventListener('abort', stop, { once: true });
    try {
      return await connection.withAbortSignal(own.signal, () => connection.withDeadline(deadline, fn));
    } finally {
      stopped.removeEventListener('abort', stop);
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
