/**
 * Every inbound message reaches exactly one place, even when a wait ends while a message is
 * being routed to it. The agent runs in a real worker process whose workflow code carries a
 * test interceptor that holds the task routing "echo crossing" for seven seconds (as a
 * stalled worker would; TEMPORAL_DEBUG lifts the deadlock guard in that process only). The
 * handlers run on their own task queue in this process, so meanwhile the handler's wait times
 * out and its end reaches the agent after the agent routed the message to that wait.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { resolveLimits } from '../../messaging/limits';
import { agentWorkflowId, handlerWorkflowId } from '../../protocol';
import { agentWorkflow } from '../../workflows/engine-workflows';
import { bundle, connectDevServer, waitFor } from '../support/temporal';
import { Engine } from './support';

jest.setTimeout(180_000);

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('routing across a wait that ends', () => {
  let engine: Engine | undefined;
  let handlers: Worker | undefined;
  let handlersRunning: Promise<void> | undefined;
  let closeTemporal: (() => Promise<void>) | undefined;

  afterAll(async () => {
    handlers?.shutdown();
    await handlersRunning;
    await engine?.close();
    await closeTemporal?.();
  });

  it('hands a message routed to a wait that timed out back to a new handler: delivered once, never lost', async () => {
    // 7 s of wall-clock time: more than the wait's 4 s, well within the 60-s workflow task
    // timeout. Usually less than the 10 s the waiter stays open (it hands the message back);
    // past that, the agent's signal to it fails and the agent hands the message on itself.
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-bundle-'));
    const interceptorModule = join(dir, 'slow-routing.js');
    writeFileSync(
      interceptorModule,
      `exports.interceptors = require(${JSON.stringify(require.resolve('./slow-routing-interceptor'))}).slowRouting(7_000);\n`,
    );
    const slowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('./workflows'),
      workflowInterceptorModules: [interceptorModule],
      logger: quiet,
    });
    const bundlePath = join(dir, 'slow.js');
    writeFileSync(bundlePath, slowBundle.code);
    engine = await new Engine(bundlePath, { windowMs: 2000 }).start();
    const temporal = await connectDevServer();
    closeTemporal = temporal.close;

    // Handlers on their own queue, served here: the agent's slow task does not hold them back.
    const handlerQueue = `${engine.taskQueue}-handlers`;
    handlers = await Worker.create({
      connection: temporal.nativeConnection,
      taskQueue: handlerQueue,
      workflowBundle: await bundle(require.resolve('./workflows')),
      debugMode: false,
    });
    handlersRunning = handlers.run();
    // Started before the worker, which then keeps it (ensureAgent uses the running workflow).
    await engine.client.workflow.start(agentWorkflow, {
      workflowId: agentWorkflowId(engine.agentKey),
      taskQueue: engine.taskQueue,
      workflowTaskTimeout: '60s',
      args: [
        {
          agentKey: engine.agentKey,
          limits: resolveLimits({ windowMs: 2000 }),
          handlerTaskQueue: handlerQueue,
          tuning: { pollTimeoutSeconds: 2, activityHeartbeatTimeoutMs: 3000 },
        },
      ],
    });
    process.env.TEMPORAL_DEBUG = '1';
    let worker: Awaited<ReturnType<Engine['startWorker']>> | undefined;
    try {
      worker = await engine.startWorker();
    } finally {
      delete process.env.TEMPORAL_DEBUG;
    }
    const sim = engine.sim;
    const agentKey = engine.agentKey;
    const agent = engine.client.workflow.getHandle(agentWorkflowId(agentKey));
    await waitFor(
      'the agent to poll',
      async () => (await sim.control.transcript({ agent: agentKey })).counts.requests.updates > 0,
    );

    const waitingId = await engine.human('slowwait');
    // Its wait's timer is running (and the agent holds the registration): only now the message,
    // so the agent's slow task routing it spans the moment the wait times out.
    const waiter = engine.client.workflow.getHandle(handlerWorkflowId(agentKey, waitingId));
    await waitFor('the handler to wait for the next message', async () => {
      const state = await agent.query<{ waiters: { next: number } }>('amsflow.state');
      const timers = (await waiter.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes);
      return state.waiters.next === 1 && timers.length === 1;
    });
    const crossingId = await engine.human('echo crossing');

    await waitFor(
      'the crossing message answered and the waiter finished',
      async () => {
        const texts = await engine!.sentTexts();
        // The waiter taking the message means no crossing happened: end here and say so below.
        if (texts.includes('slowwait got echo crossing')) return true;
        return texts.includes('crossing') && texts.some((t) => t.startsWith('slowwait got'));
      },
      { timeoutMs: 90_000 },
    ).catch(async (err: Error) => {
      const state = await agent.query('amsflow.state').catch(String);
      const waiter = await engine!.client.workflow
        .getHandle(handlerWorkflowId(agentKey, waitingId))
        .describe()
        .catch(String);
      const agentEvents = await agent
        .fetchHistory()
        .then((h) =>
          h.events!.slice(-15).map((e) => {
            const failed = e.workflowTaskFailedEventAttributes?.failure?.message;
            return `${String(e.eventId)} ${String(e.eventType)}${failed ? `: ${failed}` : ''}`;
          }),
        )
        .catch(String);
      throw new Error(
        `${err.message}\nagent history: ${JSON.stringify(agentEvents)}\nsent: ${(await engine!.sentTexts()).join('|')}\nstate: ${JSON.stringify(state)}\nwaiter: ${JSON.stringify((waiter as { status?: unknown }).status ?? waiter)}\nworker: ${worker?.output.slice(-30).join('\n')}`,
      );
    });
    const texts = await engine.sentTexts();
    expect(texts.filter((t) => t.startsWith('slowwait got'))).toEqual(['slowwait got nothing']);
    expect(texts.filter((t) => t === 'crossing')).toHaveLength(1);

    // The crossing really happened: the message was signalled to the waiter after its wait ended...
    const history = await engine.client.workflow
      .getHandle(handlerWorkflowId(agentKey, waitingId))
      .fetchHistory();
    const inbound = history.events!.filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'amsflow.inbound',
    );
    if (inbound.length !== 1 && process.env.ROUTING_DEBUG) {
      const t = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
        Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
      const agentEvents = (await agent.fetchHistory()).events!;
      const base = t(agentEvents[0]);
      const dump = (label: string, events: typeof agentEvents) =>
        events.map(
          (e) =>
            `${label} ${(t(e) - base).toFixed(0)} ${e.eventType} ${e.workflowExecutionSignaledEventAttributes?.signalName ?? e.activityTaskScheduledEventAttributes?.activityType?.name ?? ''}`,
        );
      console.log(
        [...dump('A', agentEvents), ...dump('H', history.events!)]
          .sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1]))
          .join('\n'),
      );
    }
    // ...or, when the waiter had already closed, the agent's signal to it failed: either way the
    // message was routed to the wait after the wait ended.
    const failedToWaiter = (await agent.fetchHistory()).events!.filter(
      (e) =>
        e.signalExternalWorkflowExecutionFailedEventAttributes?.workflowExecution?.workflowId ===
        handlerWorkflowId(agentKey, waitingId),
    );
    expect(inbound.length + failedToWaiter.length).toBe(1);
    // ...and a new handler answered it instead, and completed.
    await engine.client.workflow.getHandle(handlerWorkflowId(agentKey, crossingId)).result();
  });
});
