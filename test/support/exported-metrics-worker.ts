/**
 * A worker process for exported-metrics.ts: the Temporal Runtime installed as worker/main.ts
 * installs it (its metrics buffered, drained into the registry), the observability endpoint on
 * any free port, then amsflow's recording code once down each of its paths (a real worker on the
 * shared dev server among them). Prints `{"url": ..., "agent": ...}` (the endpoint, the simulator's agent) once all of it has run, and
 * lives until its stdin closes. A process of its own, as the Runtime is one per process.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, Worker, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createModelActivities } from '../../activities/model-calls';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { installRuntime, Observability } from '../../worker/observability';
import { activityMetricsInterceptor } from '../../worker/observability/activity-metrics';
import { AgentHealthMonitor } from '../../worker/observability/agent-health';
import type { AmsflowMetrics } from '../../worker/observability/amsflow-metrics';
import { AmsflowLogger } from '../../worker/observability/logger';
import { modelMetricsInterceptor } from '../../worker/observability/model-metrics';
import { routeWorkflowMetrics } from '../../worker/observability/workflow-metrics-meter';
import { LOOPBACK } from '../../worker/private-loopback';
import { engineClient } from './engine-client';
import { bundle, connectDevServer, uniqueTaskQueue, waitFor } from './temporal';

/** The agent of the simulator the recording code runs against. */
const AGENT = 'metrics-agent';
const CREATOR = 'user:4242';

/** A call that must fail (a fault of the simulator's met it): its metrics are what matters. */
async function failing(what: string, call: Promise<unknown>): Promise<void> {
  const ended = await call.then(
    () => 'succeeded',
    () => 'failed',
  );
  if (ended !== 'failed') throw new Error(`${what} succeeded: the fault meant for it did not meet it`);
}

/**
 * amsflow's recording code, once down each path, into `metrics`: the activities against a
 * simulator (pages with a message and receipts, a send accepted with a mark-read riding along,
 * sends refused with a 429 and of unknown outcome, a poll refused with a 429, a typing
 * indicator, a model call with no model configured) through the worker's activity interceptors;
 * the workflows' metric hooks in a workflow on a worker of the shared dev server; one agent
 * health check.
 */
async function recordEveryPath(metrics: AmsflowMetrics): Promise<void> {
  const logger = new AmsflowLogger({ format: 'json', level: 'error', stream: { write: () => {} } });
  // The worker's activity interceptors, as Observability.workerOptions() installs them.
  const interceptors: ActivityInterceptorsFactory[] = [
    activityMetricsInterceptor({ metrics, logger, logBodies: false }),
    modelMetricsInterceptor({ metrics, logger }),
  ];
  const run = <A extends unknown[], R>(activityType: string, fn: (...args: A) => Promise<R>, ...args: A) =>
    new MockActivityEnvironment({ activityType }, { interceptors, logger: new DefaultLogger('ERROR') }).run(
      fn,
      ...args,
    );

  const temporal = await connectDevServer();
  let sim: RunningSimulator | undefined;
  try {
    sim = await startSimulator({
      port: 0,
      agents: [{ id: AGENT, token: 'metrics-token', creator: CREATOR }],
      receipts: { deliveredAfterMs: 0, readAfterMs: 0 },
    });
    const client = engineClient(sim, { recipient: CREATOR });
    try {
      const acts = createActivities(new Map([[AGENT, client]]), { pollTicketsDir: false });
      const poll = () =>
        run('pollUpdates', acts.pollUpdates, { agentKey: AGENT, offset: 0, limit: 50, timeoutSeconds: 0 });
      const send = (attemptId: string, markRead?: string[]) =>
        run('sendMessage', acts.sendMessage, {
          agentKey: AGENT,
          to: CREATOR,
          message: { type: 'text', text: { body: 'hello' } },
          attemptId,
          ...(markRead ? { markRead } : {}),
        });
      const { id } = await sim.control.humanText('hi', { agent: AGENT });
      // One that does not fit its schema (a member that must be an object is a number): handed on
      // as `unknown`, a misfit.
      await sim.control.human({ agent: AGENT, type: 'text', text: { body: 'odd' }, reaction: 42 });
      await poll();
      await send('accepted', [id]);
      await run('sendTyping', acts.sendTyping, { agentKey: AGENT, messageId: id });
      await sim.control.fault({ agent: AGENT, endpoint: 'messages', fault: { kind: 'rate_limit' } });
      await failing('a send met by a 429', send('rate-limited'));
      await sim.control.fault({ agent: AGENT, endpoint: 'messages', fault: { kind: 'drop_after' } });
      await failing('a send whose connection dropped', send('ambiguous'));
      await sim.control.fault({ agent: AGENT, endpoint: 'updates', fault: { kind: 'rate_limit' } });
      await failing('a poll met by a 429', poll());
      // The receipts of the send accepted.
      await poll();
      const model = createModelActivities(temporal.client, { taskQueue: 'unused' });
      await run('amsflowModelCall', model.amsflowModelCall, {
        agentKey: AGENT,
        messages: [],
        memory: false,
        tools: [],
      });
    } finally {
      await client.close();
    }

    // The workflows' metric hooks: through the SDK's sink to the worker's meter, routed to `metrics`.
    routeWorkflowMetrics(metrics);
    const taskQueue = uniqueTaskQueue('exported-metrics');
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      taskQueue,
      workflowBundle: await bundle(require.resolve('./exported-metrics-workflow')),
    });
    await worker.runUntil(
      temporal.client.workflow.execute('everyMetricHook', {
        taskQueue,
        workflowId: `${taskQueue}-hooks`,
        args: [AGENT],
      }),
    );
    await waitFor(
      'the workflow metric hooks to reach the registry',
      () => metrics.sendFailures.get({ agent: AGENT, type: 'SendRejected' }) > 0,
    );

    // The agent's health (no agent workflow runs: not_running), into the amsflow_agent_* gauges.
    const health = new AgentHealthMonitor({ client: temporal.client, agentKeys: [AGENT], metrics });
    await health.check();
    await health.stop();
  } finally {
    await sim?.close();
    await temporal.close();
  }
}

async function main(): Promise<void> {
  const quiet = { write: () => {} };
  const obs = new Observability(
    { metricsPort: 0, metricsHost: LOOPBACK, logFormat: 'json', logLevel: 'error', logBodies: false },
    quiet,
  );
  installRuntime({ logger: obs.logger, metrics: true });
  await obs.start();
  await recordEveryPath(obs.metrics);
  process.stdout.write(`${JSON.stringify({ url: obs.url, agent: AGENT })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void obs.close().finally(() => process.exit(0)));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
