/**
 * Conversations from outside, through the `amsflow` CLI: `conversations list` finds the agent's
 * running conversations and their state, `show` gives one's state as JSON, `cancel` signals it;
 * against the shared dev server, a simulator and a real worker running
 * test/client/conversation-workflows.ts.
 */
import { resolve } from 'node:path';
import { run } from './cli-runner';
import { allListQuery, handlerListQuery, type ConversationListing } from '../../client/conversations';
import { Engine } from '../engine/support';
import { devServerAddress, waitFor } from '../support/temporal';

describe('amsflow conversations: bad input', () => {
  // Nothing listens here: a command that tried to connect would fail with exit 1, not 2.
  const env = { TEMPORAL_ADDRESS: '127.0.0.1:1', AMSFLOW_AGENT: 'ops' };

  it.each([
    [['conversations'], /needs a subcommand/],
    [['conversations', 'purge'], /unknown conversations subcommand "purge"/],
    [['conversations', 'show'], /needs the workflow id/],
    [['conversations', 'cancel'], /needs the workflow id/],
    [['conversations', 'show', ''], /workflow id is empty/],
    [['conversations', 'show', 'a', 'b'], /unexpected argument "b"/],
    [['conversations', 'list', 'x'], /unexpected argument "x"/],
    [['conversations', 'list', '--reason', 'why'], /does not take --reason/],
    [['conversations', 'show', 'id', '--all'], /does not take --all/],
    [['conversations', 'cancel', 'id', '--agent', 'ops'], /does not take --agent/],
    [['conversations', 'cancel', 'id', '--reason'], /argument missing/],
    [['conversations', 'list', '--agent', 'no:colons'], /agent key "no:colons" is not allowed/],
    [['state', '--json'], /state does not take --json/],
  ])('%j: usage and exit 2', async (argv, message) => {
    const { code, out, err } = await run(argv, env);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err).toContain('amsflow conversations cancel <workflow id> [--reason <text>]');
    expect(out).toBe('');
  });

  it('lists the new commands in the usage', async () => {
    const { code, out } = await run(['--help'], env);
    expect(code).toBe(0);
    expect(out).toContain('amsflow conversations list [--agent <key>] [--all] [--json]');
    expect(out).toContain('amsflow conversations show <workflow id>');
  });
});

describe('amsflow conversations', () => {
  let engine: Engine;
  let env: NodeJS.ProcessEnv;
  const started: string[] = [];

  beforeAll(async () => {
    // The worker bundles the module itself (AMSFLOW_WORKFLOWS): no suite bundle needed.
    engine = await new Engine('', {
      windowMs: 2000,
      workflows: resolve(__dirname, 'conversation-workflows.ts'),
    }).start();
    await engine.startWorker();
    env = {
      TEMPORAL_ADDRESS: devServerAddress(),
      AMSFLOW_AGENT: engine.agentKey,
      AMSFLOW_TASK_QUEUE: engine.taskQueue,
    };
  }, 120_000);

  afterAll(async () => {
    for (const id of started) {
      await engine?.client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    }
    await engine?.close();
  });

  /** The human starts a conversation; resolves with its workflow id once it asked for the name. */
  async function startConversation(text: string): Promise<string> {
    const before = (await engine.sentTexts()).length;
    const id = engine.handlerWorkflowId(await engine.human(text));
    started.push(id);
    await waitFor(
      'the question',
      async () => (await engine.sentTexts()).slice(before).includes('what is your name?'),
      { timeoutMs: 30_000 },
    );
    return id;
  }

  /** `conversations list --json` once it shows every one of `ids` (visibility lags a little). */
  async function listJson(ids: string[], extra: string[] = []) {
    return waitFor('the conversations to be listed', async () => {
      const { code, out } = await run(['conversations', 'list', '--json', ...extra], env);
      expect(code).toBe(0);
      const listed = JSON.parse(out) as ConversationListing[];
      return ids.every((id) => listed.some((l) => l.workflowId === id)) && listed;
    });
  }

  it('lists a waiting conversation, shows its state and cancels it', async () => {
    const id = await startConversation('hi');

    // Listed once it waits for the answer (it asks first, then begins to wait).
    const listed = await waitFor('the conversation to be listed waiting', async () => {
      const all = await listJson([id]);
      return all[0]?.conversation?.waiting && all;
    });
    expect(listed).toEqual([
      {
        workflowId: id,
        runId: expect.any(String),
        workflowType: 'onMessage',
        startTime: expect.any(String),
        conversation: {
          workflowId: id,
          agentKey: engine.agentKey,
          name: 'signup',
          waiting: true,
          waitingSince: expect.any(String),
          startedAt: expect.any(String),
        },
      },
    ]);
    const { waitingSince, startedAt } = listed[0].conversation!;
    expect(Date.parse(waitingSince!)).toBeGreaterThanOrEqual(Date.parse(startedAt));
    const text = await run(['conversations', 'list'], env);
    expect(text).toEqual({ code: 0, out: `${id}  name: signup  waiting since ${waitingSince}`, err: '' });

    const shown = await run(['conversations', 'show', id], env);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual({ ...listed[0].conversation, status: 'RUNNING' });

    const cancelled = await run(['conversations', 'cancel', id, '--reason', 'customer called in'], env);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.out)).toEqual({
      workflowId: id,
      runId: listed[0].runId,
      reason: 'customer called in',
      before: listed[0].conversation,
    });
    // The wait ended as cancelled: the handler told the human and completed (its last reply is
    // queued with the agent, not awaited: it may leave just after the handler completed).
    const handle = engine.client.workflow.getHandle(id);
    await handle.result();
    await waitFor('the cancellation told to the human', async () =>
      (await engine.sentTexts()).includes('Cancelled signup.'),
    );
    expect(await engine.sentTexts()).toEqual(['what is your name?', 'Cancelled signup.']);
    const after = await run(['conversations', 'show', id], env);
    expect(JSON.parse(after.out)).toMatchObject({
      cancelled: 'operator',
      waiting: false,
      status: 'COMPLETED',
    });
    expect(JSON.stringify(await handle.fetchHistory())).toContain('amsflow.cancel');
    await waitFor('the list to drop it', async () => {
      const { out } = await run(['conversations', 'list', '--json'], env);
      return !out.includes(id);
    });
    const again = await run(['conversations', 'cancel', id], env);
    expect(again).toEqual({
      code: 1,
      out: '',
      err: `workflow "${id}" is not running (COMPLETED): nothing to cancel`,
    });
  });

  it('lists what gives no conversation state, and with --all the agent’s other conversations', async () => {
    const id = await startConversation('hello');
    // A workflow under the handler ids that is not a conversation.
    const stray = engine.handlerWorkflowId('not-a-handler');
    // A conversation opened with useAgent under its own id, and an unrelated workflow.
    const reminder = `reminder-${engine.agentKey}`;
    const unrelated = `unrelated-${engine.agentKey}`;
    await engine.client.workflow.start('notAConversation', {
      workflowId: stray,
      taskQueue: engine.taskQueue,
    });
    await engine.client.workflow.start('reminder', {
      workflowId: reminder,
      taskQueue: engine.taskQueue,
      args: [engine.agentKey],
    });
    await engine.client.workflow.start('notAConversation', {
      workflowId: unrelated,
      taskQueue: engine.taskQueue,
    });
    started.push(stray, reminder, unrelated);

    const listed = await listJson([id, stray]);
    const ids = listed.map((l) => l.workflowId);
    expect(ids).not.toContain(reminder);
    expect(ids).not.toContain(unrelated);
    expect(listed.find((l) => l.workflowId === stray)).toMatchObject({
      workflowType: 'notAConversation',
      noState: 'not a conversation',
    });
    const text = await run(['conversations', 'list'], env);
    expect(text.out).toContain(`${stray}  no conversation state (not a conversation)`);

    const all = await listJson([id, stray, reminder], ['--all']);
    expect(all.map((l) => l.workflowId)).not.toContain(unrelated);
    expect(all.find((l) => l.workflowId === reminder)).toMatchObject({
      workflowType: 'reminder',
      conversation: { workflowId: reminder, agentKey: engine.agentKey, waiting: false },
    });

    // Another agent's list does not show them.
    const other = await run(['conversations', 'list', '--json', '--agent', `${engine.agentKey}x`], env);
    expect(other.code).toBe(0);
    expect(JSON.parse(other.out)).toEqual([]);
    const empty = await run(['conversations', 'list', '--agent', `${engine.agentKey}x`], env);
    expect(empty.out).toBe(`no running conversations of agent "${engine.agentKey}x"`);

    // show and cancel refuse what is not a conversation.
    const shown = await run(['conversations', 'show', unrelated], env);
    expect(shown).toMatchObject({ code: 1, out: '' });
    expect(shown.err).toMatch(/is not a conversation: it does not answer the amsflow.conversation query/);
    const refused = await run(['conversations', 'cancel', unrelated], env);
    expect(refused).toMatchObject({ code: 1, out: '' });
    expect(refused.err).toMatch(/is not a conversation/);
    const history = JSON.stringify(await engine.client.workflow.getHandle(unrelated).fetchHistory());
    expect(history).not.toContain('amsflow.cancel');
  });

  it('fails clearly on a workflow that does not exist or has ended', async () => {
    const missing = engine.handlerWorkflowId('no-such-message');
    for (const argv of [
      ['conversations', 'show', missing],
      ['conversations', 'cancel', missing],
    ]) {
      const { code, out, err } = await run(argv, env);
      expect({ code, out, err }).toEqual({ code: 1, out: '', err: `no workflow "${missing}"` });
    }

    const ended = `ended-${engine.agentKey}`;
    const handle = await engine.client.workflow.start('reminder', {
      workflowId: ended,
      taskQueue: engine.taskQueue,
      args: [engine.agentKey],
    });
    started.push(ended);
    await waitFor(
      'the reminder to run',
      async () => (await run(['conversations', 'show', ended], env)).code === 0,
    );
    await handle.terminate('over');
    const cancelled = await run(['conversations', 'cancel', ended], env);
    expect(cancelled).toEqual({
      code: 1,
      out: '',
      err: `workflow "${ended}" is not running (TERMINATED): nothing to cancel`,
    });
    // An ended conversation still shows its last state, with its status.
    const shown = await run(['conversations', 'show', ended], env);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ workflowId: ended, status: 'TERMINATED' });
  });

  it('uses visibility queries with an exact prefix and the agent’s task queue', () => {
    expect(handlerListQuery('a_b')).toBe(
      "WorkflowId STARTS_WITH 'agent:a_b:msg:' AND ExecutionStatus = 'Running'",
    );
    expect(allListQuery('amsflow')).toBe("ExecutionStatus = 'Running' AND TaskQueue = 'amsflow'");
    expect(allListQuery()).toBe("ExecutionStatus = 'Running'");
    expect(() => allListQuery("it's")).toThrow(/quotes/);
  });
});
