/**
 * No signal argument halts a workflow (issue 37, point 3), end to end: an in-process amsflow on
 * the shared dev server (the reference bot, bundled as the worker bundles it) and a client of the
 * namespace without keys.
 *
 * - A payload nothing decodes (`binary/encrypted` as the `temporal` CLI sends it without keys, JSON
 *   that does not parse, an encoding nobody knows) to the agent's `amsflow.ops` and a waiting
 *   conversation's `amsflow.inbound`: without keys the workflow's converter refuses it, with keys
 *   the worker's codec refuses it first. Each is dropped, logged without its content and counted,
 *   no workflow task fails; an update with one is refused and a query with one answered; the
 *   conversation then takes the human's answer and the agent echoes.
 * - A nested field of the wrong type (a numeric `text.body`, the one that crashed an approval in
 *   `wordOf`) to a waiting conversation and to a pending approval: dropped and counted, and both
 *   go on with the human's next message.
 */
import { randomBytes } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { RawValue, type Payload } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { requestApproval } from '../../client/approval-handle';
import { agentWorkflowId, handlerWorkflowId } from '../../protocol/agent';
import { waitFor } from '../support/temporal';
import { settled, startAmsflowRun, type AmsflowRun } from './running-amsflow';

jest.setTimeout(180_000);

const SECRET = 'zebra-9d2e';
const undecodable: [string, Payload][] = [
  [
    'binary/encrypted without keys',
    { metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from(`"${SECRET}"`) },
  ],
  [
    'JSON that does not parse',
    { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(`{"from":"${SECRET}`) },
  ],
  [
    'an encoding nobody knows',
    { metadata: { encoding: Buffer.from('binary/zstd') }, data: Buffer.from(SECRET) },
  ],
];
const raw = (p: Payload) => RawValue.fromPayload(p);

/** The worker's log lines (its Runtime's logger: workflows log through it) while `fn` runs. */
async function logged<T>(fn: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const logger = Runtime.instance().logger;
  const log = logger.log.bind(logger);
  const spy = jest.spyOn(logger, 'log').mockImplementation((level, message, meta) => {
    lines.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
    log(level, message, meta);
  });
  try {
    return { value: await fn(), lines };
  } finally {
    spy.mockRestore();
  }
}

describe.each([
  ['without encryption keys', {}],
  ['with encryption keys', { AMSFLOW_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` }],
])('a signal whose argument does not decode, %s', (_, env: Record<string, string>) => {
  let run: AmsflowRun;
  beforeAll(async () => {
    run = await startAmsflowRun(env);
  }, 120_000);
  afterAll(() => run?.close());

  it('is dropped, logged without its content and counted; no workflow task fails; the agent and a waiting conversation go on', async () => {
    await run.human('echo warm');
    await run.botSaid('warm');
    const signup = await run.human('signup');
    await run.botSaid('What is your name?');
    const agent = run.client.workflow.getHandle(agentWorkflowId(run.agentKey));
    const conversation = run.client.workflow.getHandle(handlerWorkflowId(run.agentKey, signup));

    const { value: refused, lines } = await logged(async () => {
      for (const [, payload] of undecodable) {
        await agent.signal('amsflow.ops', raw(payload));
        await conversation.signal('amsflow.inbound', raw(payload));
      }
      const update = await agent
        .executeUpdate('amsflow.send', { args: [raw(undecodable[0][1])] })
        .catch((err: unknown) => err);
      const state = run.ownClient.workflow.getHandle(agent.workflowId);
      expect(await state.query('amsflow.state', raw(undecodable[0][1]))).toMatchObject({
        agentKey: run.agentKey,
      });
      for (const handle of [agent, conversation])
        expect(await settled(handle)).toEqual({ failedTasks: 0, pendingAttempt: expect.any(Number) });
      await waitFor('every drop counted', async () => {
        const ops = await run.metric('amsflow_dropped_signals_total', {
          workflow: 'agentWorkflow',
          signal: 'amsflow.ops',
        });
        const inbound = await run.metric('amsflow_dropped_signals_total', {
          workflow: 'onMessage',
          signal: 'amsflow.inbound',
        });
        return ops === undecodable.length && inbound === undecodable.length;
      });
      return update;
    });
    // Refused: without keys the sender reads why; with keys the refusal is encrypted as well.
    expect(refused).toBeInstanceOf(env.AMSFLOW_ENCRYPTION_KEYS ? Error : WorkflowUpdateFailedError);
    for (const handle of [agent, conversation]) {
      const { pendingAttempt } = await settled(handle);
      expect(pendingAttempt).toBeLessThanOrEqual(1);
    }
    const history = JSON.stringify(await agent.fetchHistory());
    expect(history).not.toContain('workflowExecutionUpdateAcceptedEventAttributes');
    const drops = lines.filter((l) => l.includes('dropped, its argument does not fit: it does not decode'));
    expect(drops).toHaveLength(2 * undecodable.length);
    expect(lines.join('')).not.toContain(SECRET);

    await run.human('Ada');
    await run.botSaid('Thanks, Ada. What is your email?');
    await run.human('ada@example.com');
    await run.botSaid('Thanks Ada, registered ada@example.com.');
    await run.human('echo still here');
    await run.botSaid('still here');
  });
});

describe('a nested field of the wrong type', () => {
  let run: AmsflowRun;
  beforeAll(async () => {
    run = await startAmsflowRun();
  }, 120_000);
  afterAll(() => run?.close());

  /** A message as the agent routes one, with `patch` over it (a field of the wrong type). */
  const routed = (patch: Record<string, unknown>) => ({
    message: {
      id: `wamid.${randomBytes(4).toString('hex')}`,
      from: 'user:4242',
      type: 'text',
      timestamp: '1',
      text: { body: 'x' },
      ...patch,
    },
    seq: 1_000,
  });
  const misfits = [
    routed({ text: { body: 5 } }),
    routed({ type: 'reaction', reaction: { message_id: 'wamid.q', emoji: 7 } }),
    routed({ context: { id: 9 } }),
    routed({ type: 'image', image: { id: 'media-1', caption: ['not', 'text'] } }),
  ];

  it('is dropped and counted by a waiting conversation, which takes the human next answer', async () => {
    const signup = await run.human('signup');
    await run.botSaid('What is your name?');
    const conversation = run.client.workflow.getHandle(handlerWorkflowId(run.agentKey, signup));
    for (const misfit of misfits) await conversation.signal('amsflow.inbound', misfit);
    expect(await settled(conversation)).toEqual({ failedTasks: 0, pendingAttempt: expect.any(Number) });
    await waitFor(
      'the drops counted',
      async () =>
        (await run.metric('amsflow_dropped_signals_total', {
          workflow: 'onMessage',
          signal: 'amsflow.inbound',
        })) === misfits.length,
    );
    await run.human('Bob');
    await run.botSaid('Thanks, Bob. What is your email?');
    await run.human('bob@example.com');
    await run.botSaid('Thanks Bob, registered bob@example.com.');
  });

  it('is dropped and counted by a pending approval, which the human then decides', async () => {
    const approval = await requestApproval(run.ownClient, {
      agentKey: run.agentKey,
      question: 'Deploy now?',
      timeout: '10m',
      id: `nested-${randomBytes(3).toString('hex')}`,
      taskQueue: run.taskQueue,
    });
    await run.botSaid(/Deploy now\?/);
    const handle = run.client.workflow.getHandle(approval.workflowId);
    const before = await run.metric('amsflow_dropped_signals_total', { signal: 'amsflow.inbound' });
    await handle.signal('amsflow.inbound', routed({ text: { body: 5 } }));
    expect(await settled(handle)).toEqual({ failedTasks: 0, pendingAttempt: expect.any(Number) });
    await waitFor(
      'the drop counted',
      async () =>
        (await run.metric('amsflow_dropped_signals_total', {
          workflow: 'approvalWorkflow',
          signal: 'amsflow.inbound',
        })) >= 1,
    );
    expect(await run.metric('amsflow_dropped_signals_total', { signal: 'amsflow.inbound' })).toBeGreaterThan(
      before,
    );
    await run.human('yes');
    expect(await approval.result()).toMatchObject({ decision: 'approved', by: 'user:4242' });
  });
});
