/**
 * Every command exits non-zero when what was asked did not happen: an approval for an agent that
 * does not run fails before it starts anything, in the words of `amsflow state`; so does a send;
 * an approval cancel that has not taken effect fails. And with no Temporal reachable, every
 * command that needs it fails within 3 s naming the address and TEMPORAL_ADDRESS. Against the
 * shared dev server (no worker: nothing here needs one), and against ports where nothing
 * listens or nothing answers.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { commandsOf } from '../../client/cli/help';
import { COMMANDS } from '../../client/cli/commands';
import { unreachableMessage, temporalTarget } from '../../client/cli/temporal';
import { connectDevServer, devServerAddress, uniqueTaskQueue } from '../support/temporal';
import { run } from './cli-runner';

/** A port where nothing listens: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A sample command line for each command that needs Temporal, by its path. */
const NEEDS_TEMPORAL: Record<string, string[]> = {
  ensure: ['ensure'],
  send: ['send', 'hi'],
  state: ['state'],
  'conversations list': ['conversations', 'list'],
  'conversations show': ['conversations', 'show', 'agent:default:msg:1'],
  'conversations cancel': ['conversations', 'cancel', 'agent:default:msg:1'],
  'conversations forget': ['conversations', 'forget'],
  'approval request': ['approval', 'request', '--question', 'Deploy?'],
  'approval list': ['approval', 'list'],
  'approval cancel': ['approval', 'cancel', 'x1'],
  'agent resume': ['agent', 'resume'],
  'deploy status': ['deploy', 'status'],
  'deploy promote': ['deploy', 'promote', 'b1'],
  'deploy move': ['deploy', 'move', 'b1'],
  'deploy cancel': ['deploy', 'cancel', 'b1'],
  replay: ['replay', '--workflows', 'examples/reference/bot.ts'],
};

/** Commands that contact no Temporal server (the project commands scaffold, install and start). */
const LOCAL_ONLY = ['codec-server', 'init', 'setup', 'start'];

describe('no Temporal reachable', () => {
  it('the sample covers every command that needs Temporal', () => {
    const paths = commandsOf(COMMANDS).map(({ path }) => path);
    expect(Object.keys(NEEDS_TEMPORAL).sort()).toEqual(paths.filter((p) => !LOCAL_ONLY.includes(p)).sort());
  });

  it.each(Object.entries(NEEDS_TEMPORAL))(
    'nothing listens: %s fails at once, naming the address and TEMPORAL_ADDRESS',
    async (_, argv) => {
      const address = `127.0.0.1:${await closedPort()}`;
      const started = Date.now();
      const { code, out, err } = await run(argv, { TEMPORAL_ADDRESS: address });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect({ code, out }).toEqual({ code: 1, out: '' });
      expect(err).toBe(
        `cannot reach Temporal at ${address} (TEMPORAL_ADDRESS): connection refused (nothing listens there). ` +
          'Is the server running (npm start runs one)? Set TEMPORAL_ADDRESS to its host:port.',
      );
    },
  );

  describe('something listens but does not answer', () => {
    let server: Server;
    const sockets: Socket[] = [];
    beforeAll(async () => {
      server = createServer((socket) => void sockets.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it('fails within 3 s (the default 2 s to connect), naming the address', async () => {
      const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
      const started = Date.now();
      const { code, err } = await run(['state'], { TEMPORAL_ADDRESS: address });
      const took = Date.now() - started;
      expect(took).toBeLessThan(3_000);
      expect(took).toBeGreaterThanOrEqual(1_900);
      expect(code).toBe(1);
      expect(err).toMatch(
        new RegExp(
          `^cannot reach Temporal at ${address} \\(TEMPORAL_ADDRESS\\): no answer from a Temporal frontend within 2s`,
        ),
      );
    });

    it('waits as long as AMSFLOW_CONNECT_TIMEOUT says', async () => {
      const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
      const started = Date.now();
      const { code, err } = await run(['state'], {
        TEMPORAL_ADDRESS: address,
        AMSFLOW_CONNECT_TIMEOUT: '500ms',
      });
      expect(Date.now() - started).toBeLessThan(1_900);
      expect(code).toBe(1);
      expect(err).toContain('no answer from a Temporal frontend within 500ms');
    });
  });

  it('names the default address when TEMPORAL_ADDRESS is not set', () => {
    expect(unreachableMessage(temporalTarget({}), 'connection refused')).toMatch(
      /^cannot reach Temporal at 127\.0\.0\.1:7233 \(the default; TEMPORAL_ADDRESS is not set\): connection refused\. .*Set TEMPORAL_ADDRESS/,
    );
    expect(temporalTarget({ TEMPORAL_ADDRESS: 'temporal.internal' }).address).toBe('temporal.internal:7233');
    expect(temporalTarget({ TEMPORAL_ADDRESS: '[::1]:7300' })).toMatchObject({ host: '::1', port: 7300 });
  });

  it.each([
    [
      { TEMPORAL_ADDRESS: 'http://127.0.0.1:7233' },
      /^TEMPORAL_ADDRESS "http:\/\/127.0.0.1:7233" is not host:port/,
    ],
    [{ TEMPORAL_ADDRESS: '127.0.0.1:99999' }, /^TEMPORAL_ADDRESS "127.0.0.1:99999" is not host:port/],
    [
      { TEMPORAL_ADDRESS: '127.0.0.1:9', AMSFLOW_CONNECT_TIMEOUT: '2' },
      /^AMSFLOW_CONNECT_TIMEOUT: "2" is not a duration/,
    ],
    [
      { TEMPORAL_ADDRESS: '127.0.0.1:9', AMSFLOW_QUERY_TIMEOUT: 'soon' },
      /^AMSFLOW_QUERY_TIMEOUT: "soon" is not a duration/,
    ],
    [
      { TEMPORAL_ADDRESS: '127.0.0.1:9', AMSFLOW_QUERY_TIMEOUT: '0s' },
      /^AMSFLOW_QUERY_TIMEOUT must be longer than 0/,
    ],
  ])('%j: exit 2, nothing contacted', async (env, message) => {
    const { code, err } = await run(['state'], env);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});

describe('what was asked did not happen: exit 1', () => {
  let client: Client;
  let close: () => Promise<void>;
  let env: NodeJS.ProcessEnv;
  const taskQueue = uniqueTaskQueue('cli-exit');

  beforeAll(async () => {
    ({ client, close } = await connectDevServer());
    env = { TEMPORAL_ADDRESS: devServerAddress(), AMSFLOW_TASK_QUEUE: taskQueue };
  });
  afterAll(async () => close());

  async function exists(workflowId: string): Promise<boolean> {
    try {
      await client.workflow.getHandle(workflowId).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  it('approval request for an agent with no workflow: the words of state, and nothing started', async () => {
    const agent = `nope-${randomUUID().slice(0, 8)}`;
    const state = await run(['state', '--agent', agent], env);
    expect(state).toEqual({
      code: 1,
      out: '',
      err: `agent "${agent}" is not running (no workflow agent:${agent})`,
    });

    const asked = await run(
      ['approval', 'request', '--agent', agent, '--question', 'Deploy?', '--id', 'r1'],
      env,
    );
    expect(asked).toEqual({ code: 1, out: '', err: state.err });
    expect(await exists(`approval:${agent}:r1`)).toBe(false);
  });

  it('send to an agent with no workflow: the words of state, not a raw "workflow not found"', async () => {
    const agent = `nope-${randomUUID().slice(0, 8)}`;
    const sent = await run(['send', 'hi', '--agent', agent], env);
    expect(sent).toEqual({
      code: 1,
      out: '',
      err: `agent "${agent}" is not running (no workflow agent:${agent})`,
    });
  });

  it('an agent whose workflow has ended: refused, naming how it ended', async () => {
    const agent = `ended-${randomUUID().slice(0, 8)}`;
    // A stand-in for the agent's workflow (no worker runs it), ended by an operator.
    const handle = await client.workflow.start('agentWorkflow', {
      workflowId: `agent:${agent}`,
      taskQueue,
      args: [],
    });
    await handle.terminate('removed');
    const words = `agent "${agent}" is not running (its workflow agent:${agent} is TERMINATED)`;
    expect(await run(['send', 'hi', '--agent', agent], env)).toEqual({ code: 1, out: '', err: words });
    const asked = await run(
      ['approval', 'request', '--agent', agent, '--question', 'Deploy?', '--id', 'r1'],
      env,
    );
    expect(asked).toEqual({ code: 1, out: '', err: words });
    expect(await exists(`approval:${agent}:r1`)).toBe(false);
  });

  it('state of an agent that no worker runs: a clear failure within AMSFLOW_QUERY_TIMEOUT naming its task queue', async () => {
    const agent = `idle-${randomUUID().slice(0, 8)}`;
    const handle = await client.workflow.start('agentWorkflow', {
      workflowId: `agent:${agent}`,
      taskQueue,
      args: [],
    });
    try {
      // The default is 10 s; 2 s here.
      const state = await run(['state', '--agent', agent], { ...env, AMSFLOW_QUERY_TIMEOUT: '2s' });
      expect(state).toEqual({
        code: 1,
        out: '',
        err: `agent "${agent}" did not answer the state query within 2 s: is a worker running on task queue "${taskQueue}"?`,
      });
    } finally {
      await handle.terminate('test over');
    }
  }, 30_000);

  it('a namespace that does not exist: named, with TEMPORAL_NAMESPACE', async () => {
    const { code, err } = await run(['approval', 'list'], {
      ...env,
      TEMPORAL_NAMESPACE: 'no-such-namespace',
    });
    expect(code).toBe(1);
    expect(err).toBe(
      `namespace "no-such-namespace" does not exist on the Temporal at ${devServerAddress()} (TEMPORAL_NAMESPACE)`,
    );
  });

  it('approval cancel that has not taken effect within AMSFLOW_QUERY_TIMEOUT (no worker runs the approval): exit 1', async () => {
    const agent = `quiet-${randomUUID().slice(0, 8)}`;
    const workflowId = `approval:${agent}:c1`;
    await client.workflow.start('approvalWorkflow', { workflowId, taskQueue, args: [] });
    try {
      const cancelled = await run(['approval', 'cancel', 'c1', '--agent', agent], {
        ...env,
        AMSFLOW_QUERY_TIMEOUT: '1500ms',
      });
      expect(cancelled.code).toBe(1);
      expect(JSON.parse(cancelled.out)).toEqual({ id: 'c1', workflowId, cancel: 'signalled' });
      expect(cancelled.err).toMatch(/^approval c1: cancel signalled, but it has not ended within 1.5 s/);
    } finally {
      await client.workflow.getHandle(workflowId).terminate('test over');
    }
  }, 30_000);
});
