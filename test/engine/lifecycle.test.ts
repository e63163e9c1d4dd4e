import { WorkflowUpdateFailedError } from '@temporalio/client';
import { main as cli } from '../../client/cli';
import { devServerAddress, waitFor } from '../support/temporal';
import { engineSuite } from './support';

describe('worker lifecycle, operator tools and secrets', () => {
  const suite = engineSuite();

  it('stops promptly on SIGINT while a long poll is open, and the next worker resumes', async () => {
    const engine = await suite.start({ windowMs: 2000, tuning: { pollTimeoutSeconds: 20 } });
    const worker = await engine.startWorker();
    await waitFor('a long poll to be open', async () => (await engine.transcript()).polling);
    const started = Date.now();
    expect(await worker.stop()).toBe(0);
    // A 20 s long poll did not hold the shutdown.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(worker.output.join('\n')).toContain('amsflow: stopped');

    await engine.startWorker();
    await engine.human('echo resumed');
    await waitFor('the reply', async () => (await engine.sentTexts()).includes('resumed'), {
      timeoutMs: 40_000,
    });
  });

  it('keeps the token out of every workflow history', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    const id = await engine.human('echo secret-free');
    await waitFor('the reply', async () => (await engine.sentTexts()).length === 1);
    const handler = engine.client.workflow.getHandle(engine.handlerWorkflowId(id));
    await handler.result();
    for (const handle of [engine.client.workflow.getHandle(engine.agentWorkflowId), handler]) {
      const history = JSON.stringify(await handle.fetchHistory());
      expect(history.length).toBeGreaterThan(1000);
      expect(history).not.toContain(engine.token);
    }
  });

  it('gives operators the agent state as JSON and an out-of-band send through the outbox (amsflow CLI)', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);
    const env = {
      TEMPORAL_ADDRESS: devServerAddress(),
      AMSFLOW_AGENT: engine.agentKey,
      AMSFLOW_TASK_QUEUE: engine.taskQueue,
    };
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      expect(await cli(['send', 'hello', 'from', 'ops', '--request-id', 'ops-1'], env)).toBe(0);
      // The same request id is taken once: no second message.
      expect(await cli(['send', 'hello', 'from', 'ops', '--request-id', 'ops-1'], env)).toBe(0);
      expect(await cli(['state'], env)).toBe(0);
      // The agent already runs: ensure keeps it (one poll loop per agent).
      expect(await cli(['ensure'], env)).toBe(0);
    } finally {
      log.mockRestore();
    }
    const [first, second] = lines.slice(0, 2).map((l) => JSON.parse(l));
    expect(first).toMatchObject({ ok: true, messageId: expect.any(String) });
    expect(second).toEqual(first);
    expect(await engine.sentTexts()).toEqual(['hello from ops']);
    const state = JSON.parse(lines[2]);
    expect(state).toMatchObject({
      agentKey: engine.agentKey,
      recipientKnown: true,
      queueLength: 0,
      waiters: { reply: 0, next: 0 },
      counters: { sent: 1 },
    });
    // (The receipts of the send are read past by the quiet poll: the offset moves when it returns.)
    expect(state.counters.polls).toBeGreaterThan(0);
    const ensured = JSON.parse(lines[3]);
    const { runId } = await engine.client.workflow.getHandle(engine.agentWorkflowId).describe();
    expect(ensured).toEqual({ agentKey: engine.agentKey, workflowId: engine.agentWorkflowId, runId });
  });

  it('refuses a malformed out-of-band request before it reaches history', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    const handle = engine.client.workflow.getHandle(engine.agentWorkflowId);
    await waitFor('the agent to run', () => handle.describe().then(() => true));
    const refused = await handle
      .executeUpdate('amsflow.send', { args: [{ requestId: '', message: { text: 'no type' } }] })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/non-empty requestId/);
    expect(JSON.stringify(await handle.fetchHistory())).not.toContain('no type');
  });
});
