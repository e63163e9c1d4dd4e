/**
 * A reminder and an approval pending while the worker is SIGKILLed: the question is asked once,
 * the answer given while no worker runs is taken once, the approval resolves once, and the
 * reminder, due while the worker is down, fires once.
 */
import { approvalWorkflowId } from '../../protocol/agent';
import type { ApprovalDecision } from '../../protocol/approvals';
import { remindersWorkflowId } from '../../protocol/reminders';
import { recordHistory } from '../support/histories';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

describe('approval and reminder across a worker kill', () => {
  const suite = engineSuite();

  it('the approval resolves once and the reminder fires once', async () => {
    const engine = await suite.start({
      windowMs: 1000,
      workflows: require.resolve('../../examples/reference/bot'),
    });
    let worker = await engine.startWorker();
    await engine.human('remind me in 8 seconds to stretch');
    await waitFor(
      'the reminder confirmation',
      async () => (await engine.sentTexts()).some((t) => t.startsWith('OK, I will remind you')),
      { timeoutMs: 60_000 },
    );
    const handle = await engine.client.workflow.start('approvalWorkflow', {
      taskQueue: engine.taskQueue,
      workflowId: approvalWorkflowId(engine.agentKey, 'deploy-1'),
      args: [
        {
          agentKey: engine.agentKey,
          id: 'deploy-1',
          question: 'Deploy?',
          timeoutMs: 600_000,
          requestedAt: Date.now(),
        },
      ],
    });
    const question = await waitFor(
      'the question',
      async () =>
        (await engine.transcript()).sent.find((s) =>
          JSON.stringify(s.body).includes('Approval needed: Deploy?'),
        ),
      { timeoutMs: 60_000 },
    );
    await worker.kill();
    await engine.human('yes', { id: question.id });
    worker = await engine.startWorker();
    const decision = (await handle.result()) as ApprovalDecision;
    expect(decision).toMatchObject({ id: 'deploy-1', decision: 'approved', by: engine.creator });
    await waitFor('the confirmation', async () => (await engine.sentTexts()).includes('Approved: Deploy?'), {
      timeoutMs: 60_000,
    });
    const texts = await engine.sentTexts();
    expect(texts.filter((t) => t.startsWith('Approval needed: Deploy?'))).toHaveLength(1);
    expect(texts.filter((t) => t === 'Approved: Deploy?')).toHaveLength(1);
    await waitFor(
      'the reminder',
      async () => (await engine.sentTexts()).some((t) => t.startsWith('⏰ stretch')),
      {
        timeoutMs: 60_000,
      },
    );
    // One more exchange, so that a second firing would have shown.
    await engine.human('echo done');
    await waitFor('the echo', async () => (await engine.sentTexts()).includes('done'), { timeoutMs: 60_000 });
    expect((await engine.sentTexts()).filter((t) => t.startsWith('⏰ stretch'))).toHaveLength(1);
    await recordHistory(handle, 'approval-crash');
    await recordHistory(
      engine.client.workflow.getHandle(remindersWorkflowId(engine.agentKey)),
      'reminders-crash',
    );
  });
});
