/**
 * Approvals from outside: `requestApproval` and `amsflow approval request|list|cancel`. Argument
 * checks without a server; then, against the shared dev server, a simulator and a real worker
 * running the reference bot (which re-exports `approvalWorkflow`), the question reaching the chat
 * and the human's answer, cancel and expiry reaching the waiting command line, and requests
 * being idempotent by id.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import {
  approvalInput,
  ApprovalError,
  ApprovalRequestError,
  type ApprovalListing,
  type RequestApprovalOptions,
} from '../../client/approvals';
import { cancelApproval, getApprovalHandle, requestApproval } from '../../client/approval-handle';
import { approvalListQuery, listApprovals } from '../../client/approval-listing';
import { run } from './cli-runner';
import { conversationQuery } from '../../protocol/messages';
import { Engine } from '../engine/support';
import { devServerAddress, waitFor } from '../support/temporal';

/** A client that fails the test if anything is asked of it. */
const untouchable = new Proxy({} as Client, {
  get(_, property) {
    throw new Error(`the client was used (${String(property)})`);
  },
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('approvalInput: the checks before anything is started', () => {
  const ok: RequestApprovalOptions = { agentKey: 'ops', question: 'Deploy?', timeout: '10m' };

  it('builds the workflow input: durations in ms, a new UUID for the id, the time of the request', () => {
    const input = approvalInput({ ...ok, remindAfter: '5m' }, 1_700_000_000_000);
    expect(input).toEqual({
      agentKey: 'ops',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      question: 'Deploy?',
      timeoutMs: 600_000,
      remindAfterMs: 300_000,
      requestedAt: 1_700_000_000_000,
    });
    expect(approvalInput(ok).id).not.toBe(input.id);
    expect(approvalInput({ ...ok, id: 'deploy-42', timeout: 1500 })).toEqual({
      agentKey: 'ops',
      id: 'deploy-42',
      question: 'Deploy?',
      timeoutMs: 1500,
      requestedAt: expect.any(Number),
    });
  });

  it('takes a question of 4000 characters, counting an emoji as one', () => {
    expect(approvalInput({ ...ok, question: '👍'.repeat(4000) }).question).toHaveLength(8000);
  });

  it.each<[string, Partial<RequestApprovalOptions>, string, RegExp]>([
    ['a malformed agent key', { agentKey: 'no:colons' }, 'agentKey', /agent key "no:colons" is not allowed/],
    ['an empty agent key', { agentKey: '' }, 'agentKey', /non-empty/],
    ['an empty id', { id: '' }, 'id', /request id "" is not allowed/],
    ['an id with a space', { id: 'a b' }, 'id', /printable ASCII characters without spaces/],
    ['an id too long', { id: 'x'.repeat(201) }, 'id', /is not allowed/],
    ['an empty question', { question: '' }, 'question', /the question is empty/],
    ['a blank question', { question: ' \n\t' }, 'question', /the question is empty/],
    ['a question too long', { question: 'x'.repeat(4001) }, 'question', /4001 characters; at most 4000/],
    ['no timeout', { timeout: undefined }, 'timeout', /the timeout is required/],
    [
      'a timeout without unit',
      { timeout: '10' },
      'timeout',
      /the timeout: "10" is not a duration: add a unit/,
    ],
    ['a zero timeout', { timeout: '0s' }, 'timeout', /the timeout must be longer than 0/],
    ['a negative timeout in ms', { timeout: -5 }, 'timeout', /must be longer than 0/],
    ['a fractional timeout in ms', { timeout: 1.5 }, 'timeout', /whole number of ms/],
    ['a timeout over a year', { timeout: '366d' }, 'timeout', /\(366d\) must be at most 365d/],
    ['a malformed reminder', { remindAfter: '5 m' }, 'remindAfter', /remind-after: "5 m" is not a duration/],
    ['a zero reminder', { remindAfter: 0 }, 'remindAfter', /remind-after must be longer than 0/],
    [
      'a reminder not before the timeout',
      { remindAfter: '10m' },
      'remindAfter',
      /remind-after \(10m\) must be shorter than the timeout \(10m\)/,
    ],
  ])('rejects %s', (_, change, field, message) => {
    let caught: unknown;
    try {
      approvalInput({ ...ok, ...change });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApprovalRequestError);
    expect(caught).toMatchObject({ code: 'AMSFLOW_INVALID_APPROVAL_REQUEST', field });
    expect((caught as Error).message).toMatch(message);
  });

  it('requestApproval, getApprovalHandle and cancelApproval reject bad input without contacting the server', async () => {
    await expect(requestApproval(untouchable, { ...ok, question: '' })).rejects.toBeInstanceOf(
      ApprovalRequestError,
    );
    await expect(requestApproval(untouchable, { ...ok, timeout: 'soon' })).rejects.toMatchObject({
      field: 'timeout',
    });
    expect(() => getApprovalHandle(untouchable, 'a:b', 'x')).toThrow(ApprovalRequestError);
    await expect(cancelApproval(untouchable, 'ops', 'with space')).rejects.toMatchObject({ field: 'id' });
    await expect(listApprovals(untouchable, { agentKey: 'a b' })).rejects.toMatchObject({
      field: 'agentKey',
    });
  });

  it('names the workflow approval:<agent>:<id> and builds the visibility query', () => {
    expect(getApprovalHandle(untouchable, 'ops', 'PR#42').workflowId).toBe('approval:ops:PR#42');
    expect(approvalListQuery()).toBe("WorkflowType = 'approvalWorkflow' AND ExecutionStatus = 'Running'");
    expect(approvalListQuery('ops', 'amsflow')).toBe(
      "WorkflowType = 'approvalWorkflow' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH 'approval:ops:' AND TaskQueue = 'amsflow'",
    );
    expect(() => approvalListQuery(undefined, "q'")).toThrow(/quotes/);
  });
});

describe('amsflow approval: bad input', () => {
  // Nothing listens here: a command that tried to connect would fail with exit 1, not 2.
  const env = { TEMPORAL_ADDRESS: '127.0.0.1:1', AMSFLOW_AGENT: 'ops' };

  it.each([
    [['approval'], /approval needs a subcommand: request, list or cancel/],
    [['approval', 'approve'], /unknown approval subcommand "approve"/],
    [['approval', 'request'], /approval request needs --question <text>/],
    [['approval', 'request', 'Deploy?'], /unexpected argument "Deploy\?"/],
    [['approval', 'request', '--question'], /argument missing/],
    [['approval', 'request', '--question', ''], /the question is empty/],
    [['approval', 'request', '--question', 'ok?', '--timeout', '10'], /"10" is not a duration: add a unit/],
    [['approval', 'request', '--question', 'ok?', '--timeout', '1h30m'], /use a single unit/],
    [['approval', 'request', '--question', 'ok?', '--timeout', '0m'], /must be longer than 0/],
    [
      ['approval', 'request', '--question', 'ok?', '--remind-after', '10m'],
      /must be shorter than the timeout/,
    ],
    [
      ['approval', 'request', '--question', 'ok?', '--remind-after', '2x'],
      /remind-after: "2x" is not a duration/,
    ],
    [['approval', 'request', '--question', 'ok?', '--id', 'a b'], /request id "a b" is not allowed/],
    [['approval', 'request', '--question', 'ok?', '--agent', 'no:colons'], /agent key "no:colons"/],
    [
      ['approval', 'request', '--question', 'ok?', '--reason', 'x'],
      /approval request does not take --reason/,
    ],
    [['approval', 'request', '--question', 'ok?', '--all'], /approval request does not take --all/],
    [['approval', 'list', '--wait'], /approval list does not take --wait/],
    [['approval', 'list', 'x'], /unexpected argument "x"/],
    [['approval', 'cancel'], /approval cancel needs the request id/],
    [['approval', 'cancel', 'a', 'b'], /unexpected argument "b"/],
    [['approval', 'cancel', ''], /request id "" is not allowed/],
    [['approval', 'cancel', 'x', '--timeout', '5m'], /approval cancel does not take --timeout/],
    [['approval', 'cancel', 'x', '--agent', 'a b'], /agent key "a b"/],
    [['conversations', 'list', '--question', 'q'], /conversations list does not take --question/],
    [['state', '--wait'], /state does not take --wait/],
    [['send', 'hi', '--id', 'x'], /send does not take --id/],
  ])('%j: usage and exit 2', async (argv, message) => {
    const { code, out, err } = await run(argv, env);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err).toContain('amsflow approval request --question <text>');
    expect(out).toBe('');
  });

  it('rejects a question over 4000 characters: usage and exit 2', async () => {
    const { code, out, err } = await run(['approval', 'request', '--question', 'x'.repeat(4001)], env);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(/the question is 4001 characters; at most 4000/);
  });

  it('lists the approval commands and the duration format in the usage', async () => {
    const { code, out } = await run(['--help'], env);
    expect(code).toBe(0);
    expect(out).toContain(
      'amsflow approval request --question <text> [--agent <key>] [--timeout 10m] [--remind-after 5m] [--id <id>] [--wait] [--json]',
    );
    expect(out).toContain('amsflow approval list [--agent <key>] [--json]');
    expect(out).toContain('amsflow approval cancel <id> [--agent <key>] [--reason <text>] [--json]');
    expect(out).toContain('durations: 1500ms, 15s, 10m, 2h, 3d');
  });
});

describe('approvals against a worker', () => {
  let engine: Engine;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The worker bundles the reference bot itself (AMSFLOW_WORKFLOWS): no suite bundle needed.
    engine = await new Engine('', {
      windowMs: 1000,
      workflows: require.resolve('../../examples/reference/bot'),
    }).start();
    await engine.startWorker();
    env = {
      TEMPORAL_ADDRESS: devServerAddress(),
      AMSFLOW_AGENT: 'not-this-one',
      AMSFLOW_TASK_QUEUE: engine.taskQueue,
    };
  }, 120_000);

  afterAll(async () => {
    if (!engine) return;
    for (const l of await listApprovals(engine.client, { agentKey: engine.agentKey, queryTimeoutMs: 1000 })) {
      await engine.client.workflow
        .getHandle(l.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
    await engine.close();
  });

  const agent = () => ['--agent', engine.agentKey];
  const newId = () => `t-${randomUUID().slice(0, 8)}`;

  /** The sent messages whose text contains `fragment`. */
  async function sentWith(fragment: string) {
    const { sent } = await engine.transcript();
    return sent.filter((s) => ((s.body as { text?: { body?: string } }).text?.body ?? '').includes(fragment));
  }

  /**
   * The id of the message that asked `question`, once it is in the chat and approval `id` waits
   * for the answer (its conversation state says so). An answer written between the two, a few
   * ms, would not reach the approval: a human is never that fast, a test is.
   */
  async function questionMessage(question: string, id: string): Promise<string> {
    const [asked] = await waitFor('the question in the chat', async () => {
      const found = await sentWith(question);
      return found.length > 0 && found;
    });
    const handle = engine.client.workflow.getHandle(`approval:${engine.agentKey}:${id}`);
    await waitFor(
      'the approval to wait for the answer',
      async () => (await handle.query(conversationQuery)).waiting,
    );
    return asked.id;
  }

  it('request --wait --json: the question reaches the chat, the human approves, one JSON line', async () => {
    const id = newId();
    const question = `Deploy ${id} to production?`;
    const requested = Date.now();
    const waiting = run(
      [
        'approval',
        'request',
        ...agent(),
        '--question',
        question,
        '--id',
        id,
        '--timeout',
        '2m',
        '--wait',
        '--json',
      ],
      env,
    );
    const asked = await questionMessage(question, id);
    expect((await sentWith(question)).map((s) => (s.body as { text: { body: string } }).text.body)).toEqual([
      expect.stringContaining(question),
    ]);
    const answer = await engine.human('yes', { id: asked });

    const { code, out, err } = await waiting;
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out.split('\n')).toHaveLength(1);
    const decision = JSON.parse(out);
    expect(Object.keys(decision)).toEqual(['id', 'decision', 'by', 'messageId', 'at']);
    expect(decision).toEqual({
      id,
      decision: 'approved',
      by: engine.creator,
      messageId: answer,
      at: expect.stringMatching(ISO),
    });
    expect(Date.parse(decision.at)).toBeGreaterThanOrEqual(requested);
    expect(Date.parse(decision.at)).toBeLessThanOrEqual(Date.now());
  });

  it('is idempotent by id: a second request is the same request, pending or decided', async () => {
    const id = newId();
    const question = `Rotate the keys (${id})?`;
    const argv = ['approval', 'request', ...agent(), '--question', question, '--id', id];
    const first = await run(argv, env);
    const workflowId = `approval:${engine.agentKey}:${id}`;
    expect(first).toEqual({ code: 0, out: JSON.stringify({ id, workflowId }), err: '' });
    const asked = await questionMessage(question, id);
    const { runId } = await engine.client.workflow.getHandle(workflowId).describe();

    // Pending: the same workflow run, nothing asked again (even with another question and timeout).
    const second = await run(
      [...argv.slice(0, -4), '--question', 'Something else?', '--id', id, '--timeout', '1h'],
      env,
    );
    expect(second).toEqual(first);
    expect((await engine.client.workflow.getHandle(workflowId).describe()).runId).toBe(runId);

    // Decided: the request answers with its decision at once, and starts nothing.
    const no = await engine.human('no', { id: asked });
    const third = await run([...argv, '--wait', '--json'], env);
    expect(third.code).toBe(3);
    expect(JSON.parse(third.out)).toEqual({
      id,
      decision: 'rejected',
      by: engine.creator,
      messageId: no,
      at: expect.any(String),
    });
    const human = await run([...argv, '--wait'], env);
    expect(human).toEqual({
      code: 3,
      out: `approval ${id}: rejected by ${engine.creator} at ${JSON.parse(third.out).at}`,
      err: '',
    });
    const description = await engine.client.workflow.getHandle(workflowId).describe();
    expect({ runId: description.runId, status: description.status.name }).toEqual({
      runId,
      status: 'COMPLETED',
    });
    expect(await sentWith(question)).toHaveLength(2); // the question and "Rejected: ..."
    expect(await sentWith('Something else?')).toEqual([]);
  });

  it('list shows pending approvals; cancel ends one as cancelled, and a second cancel fails', async () => {
    const id = newId();
    const question = `Delete the staging database (${id})?`;
    await run(
      ['approval', 'request', ...agent(), '--question', question, '--id', id, '--timeout', '1h'],
      env,
    );
    await questionMessage(question, id);

    const listed = await waitFor('the approval to be listed', async () => {
      const { code, out } = await run(['approval', 'list', ...agent(), '--json'], env);
      expect(code).toBe(0);
      const all = JSON.parse(out) as ApprovalListing[];
      return all.some((l) => l.id === id) && all;
    });
    const mine = listed.find((l) => l.id === id)!;
    expect(mine).toEqual({
      id,
      agentKey: engine.agentKey,
      workflowId: `approval:${engine.agentKey}:${id}`,
      runId: expect.any(String),
      startTime: expect.stringMatching(ISO),
      view: {
        id,
        agentKey: engine.agentKey,
        question,
        status: 'pending',
        requestedAt: expect.stringMatching(ISO),
        expiresAt: expect.stringMatching(ISO),
      },
    });
    expect(Date.parse(mine.view!.expiresAt) - Date.parse(mine.view!.requestedAt)).toBeGreaterThanOrEqual(
      3_590_000,
    );
    const text = await run(['approval', 'list', ...agent()], env);
    expect(text.code).toBe(0);
    expect(text.out.split('\n')).toContain(
      `${id}  pending  asked ${mine.view!.requestedAt}  expires ${mine.view!.expiresAt}  ${JSON.stringify(question)}`,
    );
    // Another agent's approvals are not listed.
    expect(await run(['approval', 'list', '--json'], env)).toEqual({ code: 0, out: '[]', err: '' });

    // Waits from code (the CLI's output capture is not made for two runs at once).
    const waiting = getApprovalHandle(engine.client, engine.agentKey, id).result();
    const cancelled = await run(
      ['approval', 'cancel', id, ...agent(), '--reason', 'changed plans', '--json'],
      env,
    );
    expect(cancelled.err).toBe('');
    expect(cancelled.code).toBe(0);
    const decision = JSON.parse(cancelled.out);
    expect(decision).toEqual({
      id,
      decision: 'cancelled',
      by: 'operator',
      messageId: null,
      at: expect.stringMatching(ISO),
    });
    // The decision itself names no message (the CLI's JSON says null).
    expect(await waiting).toEqual({ id, decision: 'cancelled', by: 'operator', at: decision.at });
    const late = ['approval', 'request', ...agent(), '--question', question, '--id', id, '--wait', '--json'];
    expect(await run(late, env)).toEqual({ code: 3, out: cancelled.out, err: '' });

    const again = await run(['approval', 'cancel', id, ...agent(), '--json'], env);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/cannot be cancelled: it was already cancelled by operator/);
    expect(again.out).toBe(cancelled.out);
    await waitFor('the cancelled approval to leave the list', async () => {
      const { out } = await run(['approval', 'list', ...agent(), '--json'], env);
      return !(JSON.parse(out) as ApprovalListing[]).some((l) => l.id === id);
    });
  });

  it('expires after the timeout: decision expired, by null', async () => {
    const id = newId();
    const question = `Quick one (${id})?`;
    const { code, out } = await run(
      [
        'approval',
        'request',
        ...agent(),
        '--question',
        question,
        '--id',
        id,
        '--timeout',
        '3s',
        '--wait',
        '--json',
      ],
      env,
    );
    expect(code).toBe(3);
    expect(JSON.parse(out)).toEqual({
      id,
      decision: 'expired',
      by: null,
      messageId: null,
      at: expect.stringMatching(ISO),
    });
  });

  it('from code: requestApproval resolves with the decision; cancel of an unknown id is NotFound', async () => {
    const handle = await requestApproval(engine.client, {
      agentKey: engine.agentKey,
      question: 'From code?',
      timeout: 120_000,
      remindAfter: '1m',
      taskQueue: engine.taskQueue,
    });
    expect(handle.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(handle.workflowId).toBe(`approval:${engine.agentKey}:${handle.id}`);
    const thumb = await engine.human('👍', { id: await questionMessage('From code?', handle.id) });
    expect(await handle.result()).toEqual({
      id: handle.id,
      decision: 'approved',
      by: engine.creator,
      messageId: thumb,
      at: expect.stringMatching(ISO),
    });
    await expect(handle.cancel()).rejects.toMatchObject({
      code: 'AMSFLOW_APPROVAL_CLOSED',
      decision: { decision: 'approved' },
    });

    const unknown = cancelApproval(engine.client, engine.agentKey, 'never-asked');
    await expect(unknown).rejects.toBeInstanceOf(ApprovalError);
    await expect(unknown).rejects.toMatchObject({ code: 'AMSFLOW_APPROVAL_NOT_FOUND' });
    await expect(
      getApprovalHandle(engine.client, engine.agentKey, 'never-asked').result(),
    ).rejects.toMatchObject({
      code: 'AMSFLOW_APPROVAL_NOT_FOUND',
    });
    const cli = await run(['approval', 'cancel', 'never-asked', ...agent()], env);
    expect(cli).toEqual({ code: 1, out: '', err: `no approval "approval:${engine.agentKey}:never-asked"` });
  });
});
