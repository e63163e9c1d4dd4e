/**
 * Every inbound message reaches exactly one place, even when a wait ends while a message is
 * being routed to it. The agent and the handlers run on separate in-process workers (so a slow
 * agent task does not hold the handlers back); an interceptor makes the agent's task that routes
 * "echo crossing" slow, so the handler's wait times out and its end reaches the agent after the
 * agent routed the message to that wait.
 */
import { randomUUID } from 'node:crypto';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { MessagingClient } from '../../messaging/client';
import { resolveLimits } from '../../messaging/limits';
import { activityQueue, agentWorkflowId, handlerWorkflowId } from '../../protocol';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { agentWorkflow } from '../../workflows';
import { connectDevServer, waitFor } from '../support/temporal';

jest.setTimeout(120_000);

describe('routing across a wait that ends', () => {
  let sim: RunningSimulator;
  let temporal: Awaited<ReturnType<typeof connectDevServer>>;
  const workers: Worker[] = [];
  const running: Promise<void>[] = [];
  const agentKey = `r${randomUUID().slice(0, 8)}`;
  const token = `token-${randomUUID()}`;
  const queue = `routing-${agentKey}`;
  const handlerQueue = `${queue}-handlers`;
  const limits = resolveLimits({ windowMs: 2000 });

  beforeAll(async () => {
    sim = await startSimulator({
      port: 0,
      limits: { windowMs: 2000 },
      agents: [{ id: agentKey, token, creator: 'user:77', creatorName: 'Tester' }],
    });
    temporal = await connectDevServer();
    const client = new MessagingClient({
      token,
      baseUrl: sim.url,
      rateLimit: false,
      maxRetries: 0,
      autoDiscover: false,
      limits,
    });
    const activities = createActivities(new Map([[agentKey, client]]));
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('./workflows'),
      workflowInterceptorModules: [require.resolve('./slow-routing-interceptor')],
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: () => undefined,
      },
    });
    const base = { connection: temporal.nativeConnection, namespace: 'default' };
    // The agent's worker is slow on purpose: no deadlock detection there.
    workers.push(await Worker.create({ ...base, taskQueue: queue, workflowBundle, debugMode: true }));
    workers.push(await Worker.create({ ...base, taskQueue: handlerQueue, workflowBundle }));
    for (const endpoint of ['updates', 'messages', 'statuses'] as const) {
      workers.push(await Worker.create({ ...base, taskQueue: activityQueue(queue, endpoint), activities }));
    }
    running.push(...workers.map((w) => w.run()));
    await temporal.client.workflow.start(agentWorkflow, {
      workflowId: agentWorkflowId(agentKey),
      taskQueue: queue,
      workflowTaskTimeout: '60s',
      args: [{ agentKey, limits, handlerTaskQueue: handlerQueue, tuning: { pollTimeoutSeconds: 2 } }],
    });
  });

  afterAll(async () => {
    await temporal?.client.workflow
      .getHandle(agentWorkflowId(agentKey))
      .terminate('test over')
      .catch(() => undefined);
    for (const w of workers) w.shutdown();
    await Promise.allSettled(running);
    await temporal?.close();
    await sim?.close();
  });

  const human = async (body: string) =>
    (await sim.control.human({ agent: agentKey, type: 'text', text: { body } })).id;
  const sentTexts = async () =>
    (await sim.control.transcript({ agent: agentKey })).sent.map(
      (s) => (s.body as { text?: { body?: string } }).text?.body ?? `<${s.type}>`,
    );

  it('hands a message routed to a wait that timed out back to a new handler: delivered once, never lost', async () => {
    const agent = temporal.client.workflow.getHandle(agentWorkflowId(agentKey));
    await waitFor(
      'the agent to poll',
      async () => (await sim.control.transcript({ agent: agentKey })).counts.requests.updates > 0,
    );
    const waitingId = await human('slowwait');
    await waitFor('the handler to wait for the next message', async () => {
      const state = await agent.query<{ waiters: { next: number } }>('amsflow.state');
      return state.waiters.next === 1;
    });
    const crossingId = await human('echo crossing');

    await waitFor(
      'the crossing message answered and the waiter finished',
      async () => {
        const texts = await sentTexts();
        return texts.includes('crossing') && texts.includes('slowwait got nothing');
      },
      { timeoutMs: 60_000 },
    );
    const texts = await sentTexts();
    expect(texts.filter((t) => t === 'crossing')).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('slowwait got'))).toEqual(['slowwait got nothing']);

    // The crossing really happened: the message was signalled to the waiter after its wait ended...
    const history = await temporal.client.workflow
      .getHandle(handlerWorkflowId(agentKey, waitingId))
      .fetchHistory();
    const inbound = history.events!.filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'amsflow.inbound',
    );
    expect(inbound).toHaveLength(1);
    // ...and a new handler answered it instead.
    const rerouted = await temporal.client.workflow
      .getHandle(handlerWorkflowId(agentKey, crossingId))
      .describe();
    expect(rerouted.status.name).toBe('COMPLETED');
  });
});
