/**
 * The per-agent health judgement (worker/observability/agent-health.ts), `/readyz`'s use of it
 * (readiness.ts) and its gauges: pure, no server.
 */
import {
  approvalsQuery,
  judgeAgent,
  pollIsOpen,
  type AgentObservation,
} from '../../../worker/observability/agent-health';
import { AmsflowMetrics } from '../../../worker/observability/amsflow-metrics';
import { Readiness } from '../../../worker/observability/readiness';
import type { AgentStateView } from '../../../protocol';

const now = Date.parse('2026-01-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function state(extra: Partial<AgentStateView> = {}): AgentStateView {
  return {
    agentKey: 'a1',
    generation: 1,
    offset: 0,
    recipientKnown: true,
    queueLength: 0,
    waiters: { reply: 0, next: 0 },
    pendingMarkRead: 0,
    dropped: { markRead: 0, receipts: 0, flood: 0 },
    historyLength: 10,
    draining: false,
    failedSends: [],
    counters: { received: 0, sent: 0, failedSends: 0, polls: 3, receipts: 0 },
    status: 'running',
    poll: { lastEndedAt: iso(now - 1000), dueBy: iso(now + 60_000) },
    ...extra,
  };
}

const seen = (extra: Partial<AgentObservation> = {}): AgentObservation => ({
  running: true,
  state: state(),
  ...extra,
});

describe('agent health', () => {
  it('is ok while the agent polls on time', () => {
    expect(judgeAgent('a1', seen(), now, 15_000)).toMatchObject({ status: 'ok', pollOverdueSeconds: 0 });
  });

  it('is ok without a state read while a poll of it is open; a failing task still comes first', () => {
    expect(judgeAgent('a1', { running: true, pollOpen: true }, now, 15_000)).toMatchObject({
      status: 'ok',
      pollOverdueSeconds: 0,
    });
    expect(
      judgeAgent('a1', { running: true, pollOpen: true, workflowTaskAttempt: 3 }, now, 15_000),
    ).toMatchObject({
      status: 'task_failing',
    });
    expect(judgeAgent('a1', { running: true }, now, 15_000)).toMatchObject({ status: 'unknown' });
  });

  it('counts a poll as open only while it runs on a worker (started, no cancel asked)', () => {
    const poll = (state: number, name = 'pollUpdates') => ({ activityType: { name }, state });
    expect(pollIsOpen([poll(2)])).toBe(true);
    expect(pollIsOpen([poll(1), poll(2, 'sendMessage')])).toBe(false);
    expect(pollIsOpen([poll(3)])).toBe(false);
    expect(pollIsOpen(undefined)).toBe(false);
  });

  it('reports a refusal with its fix', () => {
    const refusal = {
      status: 'unauthorized' as const,
      where: 'poll' as const,
      httpStatus: 401,
      at: iso(now),
      message: 'HTTP 401',
      fix: 'the token of agent a1 was refused (401): set a valid token and restart the worker, or run `amsflow agent resume a1`',
    };
    const health = judgeAgent(
      'a1',
      seen({ state: state({ status: 'unauthorized', refusal, poll: {} }) }),
      now,
      15_000,
    );
    expect(health).toMatchObject({ status: 'unauthorized', reason: refusal.fix });
  });

  it('reports a workflow task that keeps failing (attempt 2 or later), before anything the query says', () => {
    expect(judgeAgent('a1', seen({ workflowTaskAttempt: 1 }), now, 15_000).status).toBe('ok');
    const failing = judgeAgent(
      'a1',
      seen({ workflowTaskAttempt: 4, state: { error: 'query timed out' } }),
      now,
      15_000,
    );
    expect(failing).toMatchObject({ status: 'task_failing', workflowTaskAttempt: 4 });
    expect(failing.reason).toContain('agent:a1');
  });

  it('reports an agent that has not polled within its cadence, after the grace', () => {
    const late = (ms: number) => seen({ state: state({ poll: { dueBy: iso(now - ms) } }) });
    expect(judgeAgent('a1', late(10_000), now, 15_000)).toMatchObject({
      status: 'ok',
      pollOverdueSeconds: 10,
    });
    expect(judgeAgent('a1', late(20_000), now, 15_000)).toMatchObject({
      status: 'not_polling',
      pollOverdueSeconds: 20,
    });
  });

  it('reports a workflow that does not run, or whose state cannot be read', () => {
    expect(
      judgeAgent('a1', { running: false, closedStatus: 'TERMINATED', state: { error: 'closed' } }, now, 0),
    ).toMatchObject({
      status: 'not_running',
      reason: expect.stringContaining('TERMINATED'),
    });
    expect(judgeAgent('a1', seen({ state: { error: 'deadline exceeded' } }), now, 0).status).toBe('unknown');
  });

  it('reports an agent whose approval keeps failing its workflow task, naming the approval, after its own trouble', () => {
    const stuckApprovals = [
      { workflowId: 'approval:a1:deploy-1', workflowTaskAttempt: 3 },
      { workflowId: 'approval:a1:deploy-2', workflowTaskAttempt: 2 },
    ];
    const health = judgeAgent('a1', seen({ stuckApprovals }), now, 15_000);
    expect(health).toMatchObject({ status: 'approval_stuck', stuckApprovals });
    expect(health.reason).toMatch(
      /^approval approval:a1:deploy-1 keeps failing its workflow task \(attempt 3\) \(and 1 more approval\(s\) of agent a1\): /,
    );
    expect(health.reason).toContain('amsflow approval cancel deploy-1 --agent a1');
    // The agent's own failing task is what it is; the approvals are still listed.
    expect(judgeAgent('a1', seen({ stuckApprovals, workflowTaskAttempt: 2 }), now, 0)).toMatchObject({
      status: 'task_failing',
      stuckApprovals,
    });
    expect(judgeAgent('a1', seen({ stuckApprovals: [] }), now, 0)).not.toHaveProperty('stuckApprovals');
  });

  it('lists the running approvals of the agents served, with one visibility query', () => {
    expect(approvalsQuery(['a1', 'b.2'])).toBe(
      "WorkflowType = 'approvalWorkflow' AND ExecutionStatus = 'Running' AND " +
        "(WorkflowId STARTS_WITH 'approval:a1:' OR WorkflowId STARTS_WITH 'approval:b.2:')",
    );
    // A key that could not be in a workflow id could not be quoted either: left out.
    expect(approvalsQuery(["x' OR 1=1 --"])).toBeUndefined();
    expect(approvalsQuery([])).toBeUndefined();
  });

  it('makes /readyz answer not ready, per agent, and sets the gauges', async () => {
    const readiness = new Readiness();
    readiness.running([], { workflowService: { getSystemInfo: () => Promise.resolve({}) } } as never);
    const health = [
      judgeAgent('a1', seen(), now, 0),
      judgeAgent('a2', seen({ workflowTaskAttempt: 3 }), now, 0),
    ];
    readiness.watchAgents(() => health);
    const report = await readiness.check();
    expect(report.ready).toBe(false);
    expect(report.reason).toMatch(/^agent a2 is task_failing: /);
    expect(report.agents?.map((a) => a.status)).toEqual(['ok', 'task_failing']);

    const metrics = new AmsflowMetrics();
    metrics.recordAgentHealth(health);
    expect(metrics.agentUp.get({ agent: 'a1' })).toBe(1);
    expect(metrics.agentUp.get({ agent: 'a2' })).toBe(0);
    expect(metrics.agentStatus.get({ agent: 'a2', status: 'task_failing' })).toBe(1);
    expect(metrics.agentStatus.get({ agent: 'a2', status: 'ok' })).toBe(0);
    expect(metrics.agentTaskAttempt.get({ agent: 'a2' })).toBe(3);

    const stuck = judgeAgent(
      'a3',
      seen({ stuckApprovals: [{ workflowId: 'approval:a3:x', workflowTaskAttempt: 2 }] }),
      now,
      0,
    );
    readiness.watchAgents(() => [stuck]);
    expect((await readiness.check()).reason).toMatch(
      /^agent a3 is approval_stuck: approval approval:a3:x keeps failing its workflow task/,
    );
    metrics.recordAgentHealth([stuck]);
    expect(metrics.agentUp.get({ agent: 'a3' })).toBe(0);
    expect(metrics.agentStatus.get({ agent: 'a3', status: 'approval_stuck' })).toBe(1);
    expect(metrics.agentStuckApprovals.get({ agent: 'a3' })).toBe(1);
    expect(metrics.agentStuckApprovals.get({ agent: 'a1' })).toBe(0);
  });
});
