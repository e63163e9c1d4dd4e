/**
 * Per-agent health with real worker processes: a poll ended by a clean shutdown is not an error
 * in `amsflow state`, and an agent whose workflow task keeps failing is reported by `/readyz`
 * and the `amsflow_agent_*` gauges (issue 19, point 6).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAgentState } from '../../client/agents';
import { freePort } from '../../worker/dev-server';
import type { AgentStateView } from '../../protocol';
import { bundle, waitFor } from '../support/temporal';
import { Engine, engineSuite } from './support';
import { sample } from '../support/metrics-sample';

/** The index of the last element that passes `test`, or -1. */
function lastIndex<T>(items: T[], test: (item: T) => unknown): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}

describe('agent health', () => {
  const suite = engineSuite();

  it('a clean Ctrl-C is no error: after a restart the state shows no WorkerShutdown', async () => {
    const engine = await suite.start({ windowMs: 2000, tuning: { pollTimeoutSeconds: 20 } });
    const worker = await engine.startWorker();
    await waitFor('a long poll to be open', async () => (await engine.transcript()).polling);
    expect(await worker.stop()).toBe(0);
    await engine.startWorker();
    const handle = engine.client.workflow.getHandle(engine.agentWorkflowId);
    // The next worker has seen the poll the shutdown ended (its failure is in history) and polls again.
    await waitFor('the ended poll to be processed', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const failed = events.findIndex((e) => e.activityTaskFailedEventAttributes);
      const done = lastIndex(events, (e) => e.workflowTaskCompletedEventAttributes);
      return failed >= 0 && done > failed;
    });
    const state = (await getAgentState(engine.client, engine.agentKey)) as AgentStateView;
    expect(state.lastError).toBeUndefined();
    expect(state.status).toBe('running');
    await engine.human('echo after restart');
    await waitFor('the reply', async () => (await engine.sentTexts()).includes('after restart'), {
      timeoutMs: 40_000,
    });
  }, 180_000);

  it('an agent whose workflow task keeps failing: /readyz 503 naming it, amsflow_agent_up 0', async () => {
    const { code } = await bundle(require.resolve('./broken-agent-workflows'));
    const file = join(mkdtempSync(join(tmpdir(), 'amsflow-bundle-')), 'workflows.js');
    writeFileSync(file, code);
    const port = await freePort();
    const engine = await new Engine(file, {
      windowMs: 2000,
      env: { AMSFLOW_METRICS_PORT: String(port), AMSFLOW_HEALTH_CHECK_MS: '300' },
    }).start();
    try {
      await engine.startWorker();
      const report = await waitFor(
        '/readyz to report the failing agent',
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/readyz`);
          const body = (await res.json()) as { agents?: { status: string }[] };
          return res.status === 503 && body.agents?.[0]?.status === 'task_failing' && body;
        },
        { timeoutMs: 40_000 },
      );
      expect(report).toMatchObject({
        ready: false,
        reason: expect.stringContaining(
          `agent ${engine.agentKey} is task_failing: the workflow task of agent:${engine.agentKey} keeps failing`,
        ),
      });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const agent = { agent: engine.agentKey };
      expect(sample(metrics, 'amsflow_agent_up', agent)).toBe(0);
      expect(sample(metrics, 'amsflow_agent_status', { ...agent, status: 'task_failing' })).toBe(1);
      expect(sample(metrics, 'amsflow_agent_workflow_task_attempt', agent)).toBeGreaterThanOrEqual(2);
    } finally {
      await engine.close();
    }
  }, 180_000);
});
