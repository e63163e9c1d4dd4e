/**
 * Nothing halts silently (issue 19, point 6): anyone with namespace access can signal, update or
 * query any amsflow workflow with any payload. Table-driven against one real dev server and a
 * real worker process: `null`, `1`, `{}` and a wrong-typed field to every signal of the agent
 * workflow, of a handler's conversation, of an approval and of the reminders workflow; the same
 * to the `send` update (refused before history) and to every query (answered). Then every
 * workflow has no failed workflow task, the bad signals were logged and counted, and each still
 * works: the agent echoes, the handler gets its receipt, the approval is decided, the reminders
 * workflow answers.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { requestApproval } from '../../client/approval-handle';
import { freePort } from '../../worker/dev-server';
import { bundle, waitFor } from '../support/temporal';
import { Engine } from './support';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sample } from '../support/metrics-sample';

const BAD = [null, 1, {}];
const message = { id: 'wamid.x', from: 'user:4242', type: 'text', timestamp: '1', text: { body: 'hi' } };

/** Signals of a conversation (a handler, an approval, the reminders workflow) and their bad arguments. */
const CONVERSATION_SIGNALS: [string, unknown[]][] = [
  ['amsflow.sendResult', [...BAD, { requestId: 'r', outcome: { ok: 'yes' } }]],
  ['amsflow.inbound', [...BAD, { message, seq: 'one' }]],
  ['amsflow.receipt', [...BAD, { messageId: 'm', status: 3 }]],
  ['amsflow.late', [...BAD, { message: 1, seq: 1, questionId: 'q' }]],
  // A cancel needs no argument: `null` and `{}` are cancels, so only these are bad.
  ['amsflow.cancel', [1, 'x', { reason: 5 }]],
];

const AGENT_SIGNALS: [string, unknown[]][] = [
  [
    'amsflow.ops',
    [
      ...BAD,
      // Each operation is checked on its own: a bad one is dropped (and counted) by itself.
      { from: 'w', ops: [{ op: 'release', seq: 'x' }] },
      { from: 'w', ops: [{ op: 'send', request: { requestId: 5, message: { type: 'text' } } }] },
      { from: 'w', ops: [{ op: 'wait', request: { workflowId: 'w', wait: 'yes' } }] },
      { from: 'w', ops: [{ op: 'typing', messageId: 7 }] },
      // An operation of another workflow than the sender's.
      { from: 'w', ops: [{ op: 'wait', request: { workflowId: 'other', wait: false } }] },
    ],
  ],
  // A resume needs no argument (`null`, `{}`: a resume of a running agent does nothing).
  ['amsflow.resume', [1, { reason: 5 }]],
];

/** Once the workflow has processed every signal sent so far: none of its workflow tasks failed. */
async function settled(handle: WorkflowHandle): Promise<{ failedTasks: number }> {
  return waitFor(`${handle.workflowId} to process its signals`, async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const lastSignal = lastIndex(events, (e) => e.workflowExecutionSignaledEventAttributes);
    const lastDone = lastIndex(
      events,
      (e) => e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes,
    );
    return (
      lastDone > lastSignal && {
        failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
      }
    );
  });
}

/** The index of the last element that passes `test`, or -1. */
function lastIndex<T>(items: T[], test: (item: T) => unknown): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}

describe('malformed signals, updates and queries to every amsflow workflow', () => {
  let engine: Engine;
  let port: number;

  beforeAll(async () => {
    const { code } = await bundle(require.resolve('./signal-workflows'));
    const file = join(mkdtempSync(join(tmpdir(), 'amsflow-bundle-')), 'workflows.js');
    writeFileSync(file, code);
    port = await freePort();
    engine = await new Engine(file, { windowMs: 2000, env: { AMSFLOW_METRICS_PORT: String(port) } }).start();
  }, 120_000);
  afterAll(async () => {
    for (const id of [`reminders:${engine?.agentKey}`]) {
      await engine?.client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    }
    await engine?.close();
  });

  it('logs and drops each bad one, refuses bad updates before history, answers queries; every workflow goes on', async () => {
    const worker = await engine.startWorker();
    const wf = (id: string) => engine.client.workflow.getHandle(id);
    const agent = wf(engine.agentWorkflowId);
    // A handler that waits (for its message's read receipt), an approval that waits, and the reminders workflow.
    const receiptId = await engine.human('receipt');
    await waitFor('the handler to send', async () => (await engine.sentTexts()).includes('watch me'));
    const handler = wf(engine.handlerWorkflowId(receiptId));
    const approval = await requestApproval(engine.client, {
      agentKey: engine.agentKey,
      question: 'Deploy now?',
      timeout: '10m',
      id: 'sig',
      taskQueue: engine.taskQueue,
    });
    await waitFor('the approval question', async () =>
      (await engine.sentTexts()).some((t) => t.includes('Deploy now?')),
    );
    const reminders = await engine.client.workflow.start('remindersWorkflow', {
      workflowId: `reminders:${engine.agentKey}`,
      taskQueue: engine.taskQueue,
      args: [{ agentKey: engine.agentKey }],
    });

    const table: [WorkflowHandle, string, unknown[]][] = [
      ...AGENT_SIGNALS.map(([name, args]): [WorkflowHandle, string, unknown[]] => [agent, name, args]),
      ...[handler, wf(approval.workflowId), reminders].flatMap((h) =>
        CONVERSATION_SIGNALS.map(([name, args]): [WorkflowHandle, string, unknown[]] => [h, name, args]),
      ),
      [
        reminders,
        'amsflow.reminders.command',
        [...BAD, { op: 'cancel', id: 5 }, { op: 'zone', timeZone: 7 }],
      ],
    ];
    let sent = 0;
    for (const [handle, name, args] of table) {
      for (const arg of args) {
        await handle.signal(name, arg);
        sent++;
      }
    }
    // The wake signal takes no argument: whatever comes is ignored.
    for (const arg of [null, 1, {}, { x: 1 }]) await agent.signal('amsflow.wake', arg);

    for (const arg of [...BAD, { requestId: 5, message: { type: 'text' } }]) {
      const refused = await agent.executeUpdate('amsflow.send', { args: [arg] }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    }
    const queries: [WorkflowHandle, string][] = [
      [agent, 'amsflow.state'],
      [handler, 'amsflow.conversation'],
      [wf(approval.workflowId), 'amsflow.approval'],
      [wf(approval.workflowId), 'amsflow.conversation'],
      [reminders, 'amsflow.reminders'],
    ];
    for (const [handle, name] of queries) {
      for (const arg of BAD) expect(await handle.query(name, arg)).toEqual(expect.any(Object));
    }

    for (const handle of [agent, handler, wf(approval.workflowId), reminders]) {
      expect({ id: handle.workflowId, ...(await settled(handle)) }).toEqual({
        id: handle.workflowId,
        failedTasks: 0,
      });
    }
    const agentHistory = JSON.stringify(await agent.fetchHistory());
    expect(agentHistory).not.toContain('workflowExecutionUpdateAcceptedEventAttributes');

    // Each was logged (without its payload) and counted.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(sample(metrics, 'amsflow_dropped_signals_total', {})).toBe(sent);
    expect(
      sample(metrics, 'amsflow_dropped_signals_total', {
        workflow: 'agentWorkflow',
        signal: 'amsflow.ops',
      }),
    ).toBe(8);
    // The worker's log reaches this process through a pipe, after the counter already shows.
    const droppedLines = () => worker.output.filter((l) => l.includes('dropped, its argument does not fit'));
    const dropped = await waitFor(
      'every drop in the worker log',
      () => droppedLines().length >= sent && droppedLines(),
    );
    expect(dropped).toHaveLength(sent);
    expect(dropped.join('\n')).not.toContain('"one"');

    // Every workflow still works.
    await engine.human('echo still here');
    await waitFor('the echo', async () => (await engine.sentTexts()).includes('still here'));
    const watched = (await engine.transcript()).sent.find((s) =>
      JSON.stringify(s.body).includes('watch me'),
    )!;
    await engine.sim.control.read({ id: watched.id, agent: engine.agentKey });
    await waitFor('the handler to see its receipt', async () =>
      (await engine.sentTexts()).includes('seen it'),
    );
    const question = (await engine.transcript()).sent.find((s) =>
      JSON.stringify(s.body).includes('Deploy now?'),
    )!;
    await engine.human('yes', { id: question.id });
    expect(await approval.result()).toMatchObject({ decision: 'approved' });
    expect(await reminders.query('amsflow.reminders')).toMatchObject({ reminders: [] });
  }, 240_000);
});
