/**
 * An approval that is not making progress (its workflow task keeps failing) turns `/readyz` 503
 * naming its agent and itself within a few health checks, and its agent's gauges red
 * (`amsflow_agent_status{status="approval_stuck"}`, `amsflow_agent_stuck_approvals`, `amsflow_agent_up`
 * 0); once it is gone, both are green again. A real amsflow (in process, the shared dev server) with
 * a short `AMSFLOW_HEALTH_CHECK_MS`, and a real worker whose approval workflow always fails its task.
 */
import { Worker } from '@temporalio/worker';
import { approvalWorkflowId } from '../../../protocol/agent';
import { startAmsflowRun, type AmsflowRun } from '../../protocol/running-amsflow';
import { bundle, connectDevServer, uniqueTaskQueue, waitFor } from '../../support/temporal';

jest.setTimeout(120_000);

const CHECK_MS = 300;

let run: AmsflowRun;
let temporal: Awaited<ReturnType<typeof connectDevServer>>;
let worker: Worker;
let working: Promise<void>;
const stuckQueue = uniqueTaskQueue('stuck-approval');

beforeAll(async () => {
  run = await startAmsflowRun({ AMSFLOW_HEALTH_CHECK_MS: String(CHECK_MS) });
  temporal = await connectDevServer();
  worker = await Worker.create({
    connection: temporal.nativeConnection,
    taskQueue: stuckQueue,
    workflowBundle: await bundle(require.resolve('./fixtures/stuck-approval-workflows')),
  });
  working = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await working;
  await temporal?.close();
  await run?.close();
});

it('an approval whose workflow task keeps failing: /readyz 503 naming the agent and the approval, its gauges red, then green once it is gone', async () => {
  await run.human('echo warm');
  await run.botSaid('warm');
  await waitFor('/readyz to be ready', async () => (await run.readyz()).status === 200);
  const agent = run.agentKey;

  const workflowId = approvalWorkflowId(agent, 'stuck-1');
  const stuck = await run.client.workflow.start('approvalWorkflow', { workflowId, taskQueue: stuckQueue });
  const startedAt = Date.now();
  const report = await waitFor(
    '/readyz to name the stuck approval',
    async () => {
      const { status, body } = await run.readyz();
      return status === 503 && body.agents?.[0]?.status === 'approval_stuck' && body;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  // The task fails at once and again on its second attempt; a check sees that within its interval.
  expect(Date.now() - startedAt).toBeLessThan(10_000);
  expect(report.reason).toMatch(
    new RegExp(
      `^agent ${agent} is approval_stuck: approval ${workflowId} keeps failing its workflow task \\(attempt \\d+\\)`,
    ),
  );
  expect(report.agents?.[0]?.stuckApprovals).toEqual([
    { workflowId, workflowTaskAttempt: expect.any(Number) },
  ]);
  expect(await run.metric('amsflow_agent_status', { agent, status: 'approval_stuck' })).toBe(1);
  expect(await run.metric('amsflow_agent_status', { agent, status: 'ok' })).toBe(0);
  expect(await run.metric('amsflow_agent_up', { agent })).toBe(0);
  expect(await run.metric('amsflow_agent_stuck_approvals', { agent })).toBe(1);

  // The agent itself was never in trouble: it still answers.
  await run.human('echo meanwhile');
  await run.botSaid('meanwhile');

  await stuck.terminate('test: the operator ended it');
  await waitFor('/readyz to be ready again', async () => (await run.readyz()).status === 200, {
    timeoutMs: 20_000,
  });
  expect(await run.metric('amsflow_agent_up', { agent })).toBe(1);
  expect(await run.metric('amsflow_agent_stuck_approvals', { agent })).toBe(0);
});
