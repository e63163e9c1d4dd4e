/**
 * Per-agent health, checked every `intervalMs` by the worker that serves the agents: nothing
 * halts silently. For each agent it asks Temporal DescribeWorkflowExecution (is the agent
 * workflow running; is its pending workflow task on attempt 2 or later, i.e. failing and being
 * retried; is a poll activity open on a worker) and, only when no poll is open, the
 * `amsflow.state` query (stopped by a refusal; the time by which its next poll should have
 * ended). A describe is a read; a query is a billed action on Temporal Cloud, and asked of every
 * agent every 15 s it was 4 of an idle agent's ~21 actions a minute: an agent whose poll is open
 * is polling, so nothing more is asked of it. (A token refused on a send stops the agent at once
 * but leaves the open poll to end by itself: the service refuses the same token's polls, so that
 * poll ends within one long poll, and `/readyz` tells in the check after; `amsflow state` and the
 * worker's log tell at once.) Agents are checked a few at a time, each with its own deadline. For
 * the agents' approvals, one visibility query lists those running,
 * then a describe each tells whether its workflow task keeps failing: such an approval takes no
 * answer and decides nothing, while every later answer of the human is routed to it. `/readyz`
 * reports the result per agent and `amsflow_agent_*` gauges carry it (docs/OPERATIONS.md has the
 * alerts). The judgement is pure ({@link judgeAgent}).
 *
 * Not making progress, as judged here: the agent's (or an approval's) workflow task failing again
 * and again (a bug, non-determinism, a payload nothing decodes: seen on the task's second attempt,
 * within a check), the agent stopped by a refusal, its next poll overdue (past the poll's own
 * time budget and `graceMs`), its workflow not running.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { mapLimited } from '../../core/map-limited';
import {
  agentKeyProblem,
  agentWorkflowId,
  APPROVAL_WORKFLOW_TYPE,
  approvalWorkflowId,
} from '../../protocol/agent';
import { stateQuery, askAgainOnRebuild } from '../../protocol/messages';
import type { AgentStateView } from '../../protocol';
import type { AmsflowMetrics } from './amsflow-metrics';
import type { AgentHealth, StuckWorkflow } from './health-status';
import { POLL_ACTIVITY } from './tracing-spans';

export {
  AGENT_HEALTH_STATUSES,
  type AgentHealth,
  type AgentHealthStatus,
  type StuckWorkflow,
} from './health-status';

/** What Temporal said about the agent workflow. */
export interface AgentObservation {
  /** false: not found, or closed (terminated, failed, timed out). */
  running: boolean;
  /** How it ended, when it did. */
  closedStatus?: string;
  workflowTaskAttempt?: number;
  /**
   * The state query's answer, or why it failed; absent when it was not asked (a poll was open:
   * {@link pollOpen}).
   */
  state?: AgentStateView | { error: string };
  /** A poll activity of the agent was running on a worker (its start recorded, no cancel asked). */
  pollOpen?: boolean;
  /** Its approvals whose workflow task keeps failing. */
  stuckApprovals?: StuckWorkflow[];
}

/** A pending workflow task on this attempt or later keeps failing. */
export const FAILING_TASK_ATTEMPT = 2;

/** How many running approvals one check describes at most, by default (the newest first). */
export const DEFAULT_MAX_APPROVALS = 50;

/** Describes of approvals in flight at once. */
const DESCRIBE_CONCURRENCY = 8;

/** Agents observed at once (a describe, and a query when no poll is open). */
const AGENT_CONCURRENCY = 16;

/** What a describe lists of a pending activity, as far as {@link pollIsOpen} reads it. */
export interface PendingActivity {
  activityType?: { name?: string | null } | null;
  state?: number | null;
}

/** The pending activity state of an activity running on a worker (PENDING_ACTIVITY_STATE_STARTED). */
const STARTED = 2;

/** Whether the agent's pending activities include a poll running on a worker. Pure. */
export function pollIsOpen(pending: readonly PendingActivity[] | null | undefined): boolean {
  return (pending ?? []).some((a) => a.activityType?.name === POLL_ACTIVITY && a.state === STARTED);
}

/**
 * Judges one agent from what Temporal said, at `now` (epoch ms); `graceMs` past its poll's due
 * time. The agent's own trouble comes first; with none, a stuck approval makes it `approval_stuck`.
 */
export function judgeAgent(
  agentKey: string,
  seen: AgentObservation,
  now: number,
  graceMs: number,
): AgentHealth {
  const own = judgeOwn(agentKey, seen, now, graceMs);
  const stuck = seen.stuckApprovals ?? [];
  if (stuck.length === 0) return own;
  const withStuck = { ...own, stuckApprovals: stuck };
  if (own.status !== 'ok') return withStuck;
  return { ...withStuck, status: 'approval_stuck', reason: stuckReason(agentKey, stuck) };
}

/** Why a stuck approval holds its agent up, and what to do: the first one named, the others counted. */
function stuckReason(agentKey: string, stuck: readonly StuckWorkflow[]): string {
  const [first] = stuck;
  const id = first.workflowId.slice(approvalWorkflowId(agentKey, '').length);
  const more = stuck.length > 1 ? ` (and ${stuck.length - 1} more approval(s) of agent ${agentKey})` : '';
  return (
    `approval ${first.workflowId} keeps failing its workflow task (attempt ${first.workflowTaskAttempt})${more}: ` +
    "it takes no answer and decides nothing, and the human's answers go to it; see the worker's log and " +
    `its history (temporal workflow show -w ${first.workflowId}), then fix the bot or cancel it ` +
    `(amsflow approval cancel ${id} --agent ${agentKey})`
  );
}

/**
 * The visibility query for the running approvals of `agentKeys` (keys that cannot be part of a
 * workflow id are left out: the query holds them as they are, and visibility has no escapes).
 */
export function approvalsQuery(agentKeys: readonly string[]): string | undefined {
  const prefixes = agentKeys
    .filter((key) => agentKeyProblem(key) === undefined)
    .map((key) => `WorkflowId STARTS_WITH '${approvalWorkflowId(key, '')}'`);
  if (prefixes.length === 0) return undefined;
  return `WorkflowType = '${APPROVAL_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND (${prefixes.join(' OR ')})`;
}

/** The agent key of approval workflow `workflowId` (`approval:<key>:<id>`; keys hold no `:`). */
function approvalAgent(workflowId: string): string {
  const prefix = approvalWorkflowId('', '').slice(0, -1);
  return workflowId.slice(prefix.length, workflowId.indexOf(':', prefix.length));
}

/** The agent's own health: its workflow, its refusal, its polls. */
function judgeOwn(agentKey: string, seen: AgentObservation, now: number, graceMs: number): AgentHealth {
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
  // Its poll is open on a worker: it polls (the server times out a poll whose worker is lost).
  if (seen.state === undefined) {
    if (seen.pollOpen) return { ...withAttempt, pollOverdueSeconds: 0, status: 'ok' };
    return { ...withAttempt, status: 'unknown', reason: `the state of ${id} was not read` };
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
  /** Longest wait for Temporal's answers about one agent (and for the approvals' of one check). Default 5 s. */
  timeoutMs?: number;
  /** Running approvals described per check at most, the newest first. Default {@link DEFAULT_MAX_APPROVALS}. */
  maxApprovals?: number;
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
    const timeoutMs = this.options.timeoutMs ?? 5_000;
    const [stuck, observations] = await Promise.all([
      this.stuckApprovals(Date.now() + timeoutMs),
      mapLimited(this.options.agentKeys, AGENT_CONCURRENCY, (key) =>
        this.observe(key, Date.now() + timeoutMs),
      ),
    ]);
    const now = Date.now();
    const results = this.options.agentKeys.map((key, i) =>
      judgeAgent(key, { ...observations[i], stuckApprovals: stuck.get(key) }, now, grace),
    );
    this.results = results;
    this.options.metrics?.recordAgentHealth(results);
    return results;
  }

  /**
   * The agents' approvals whose workflow task keeps failing, by agent: one visibility query for
   * the running ones, then a describe each (visibility does not carry a pending task's attempt).
   * When visibility does not answer, none: the agents' own checks still run.
   */
  private async stuckApprovals(deadline: number): Promise<Map<string, StuckWorkflow[]>> {
    const byAgent = new Map<string, StuckWorkflow[]>();
    const query = approvalsQuery(this.options.agentKeys);
    if (!query) return byAgent;
    const { client } = this.options;
    const max = this.options.maxApprovals ?? DEFAULT_MAX_APPROVALS;
    let ids: string[];
    try {
      ids = await this.call(deadline, async () => {
        const found: string[] = [];
        for await (const info of client.workflow.list({ query, pageSize: max })) {
          if (found.length >= max) break;
          found.push(info.workflowId);
        }
        return found;
      });
    } catch {
      return byAgent;
    }
    const seen = await mapLimited(ids, DESCRIBE_CONCURRENCY, async (workflowId) => {
      try {
        const d = await this.call(deadline, () => client.workflow.getHandle(workflowId).describe());
        const attempt = d.raw.pendingWorkflowTask?.attempt ?? 0;
        return d.status.name === 'RUNNING' && attempt >= FAILING_TASK_ATTEMPT
          ? { workflowId, workflowTaskAttempt: attempt }
          : undefined;
      } catch {
        // Closed or gone since it was listed, or no answer in time: nothing to tell this round.
        return undefined;
      }
    });
    for (const found of seen) {
      if (!found) continue;
      const key = approvalAgent(found.workflowId);
      byAgent.set(key, [...(byAgent.get(key) ?? []), found]);
    }
    return byAgent;
  }

  private async observe(agentKey: string, deadline: number): Promise<AgentObservation> {
    const { client } = this.options;
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
    const withAttempt = attempt ? { workflowTaskAttempt: attempt } : {};
    if (pollIsOpen(description.raw.pendingActivities))
      return { running: true, ...withAttempt, pollOpen: true };
    const state = await this.call(deadline, () => askAgainOnRebuild(() => handle.query(stateQuery))).catch(
      (err: unknown) => ({
        error: message(err),
      }),
    );
    return { running: true, ...withAttempt, state };
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
