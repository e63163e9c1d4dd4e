/**
 * An in-process amsflow (worker/run.ts, the reference bot bundled as the worker bundles it) on the
 * shared dev server, against a simulator over real HTTP, with its metrics endpoint; and a client
 * without keys, as anyone with access to the namespace has. For the suites that send amsflow's
 * workflows what no sender of amsflow's would.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { dataConverterFor } from '../../codec';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { loadConfig } from '../../worker/config';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { connectDevServer, devServerAddress, uniqueTaskQueue, waitFor } from '../support/temporal';

const WINDOW_MS = 2000;

export interface AmsflowRun {
  readonly agentKey: string;
  readonly taskQueue: string;
  readonly running: RunningAmsflow;
  readonly sim: RunningSimulator;
  /** A client of the namespace without amsflow's data converter (no keys): anyone with access. */
  readonly client: Client;
  /** A client with the run's keys, as an application of amsflow has: reads what the workers write. */
  readonly ownClient: Client;
  /** The human writes `text`; resolves to its message id. */
  human(text: string): Promise<string>;
  /** Waits for the bot to have sent a text matching `text`. */
  botSaid(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** The sum of a metric's samples whose labels include `labels`, from `/metrics`. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** `/readyz`: its status and body. */
  readyz(): Promise<{ status: number; body: ReadyBody }>;
  close(): Promise<void>;
}

import { sample } from '../support/metrics-sample';

export { sample };

export interface ReadyBody {
  ready: boolean;
  reason?: string;
  agents?: { agentKey: string; status: string; reason?: string; stuckApprovals?: { workflowId: string }[] }[];
}

/** Once `handle` has taken every signal sent so far: how many of its workflow tasks failed. */
export async function settled(
  handle: WorkflowHandle,
): Promise<{ failedTasks: number; pendingAttempt: number }> {
  return waitFor(`${handle.workflowId} to take its signals`, async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const last = (test: (e: (typeof events)[number]) => unknown) => {
      for (let i = events.length - 1; i >= 0; i--) if (test(events[i])) return i;
      return -1;
    };
    const lastSignal = last((e) => e.workflowExecutionSignaledEventAttributes);
    const lastDone = last(
      (e) => e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes,
    );
    if (lastDone <= lastSignal) return undefined;
    const pending = (await handle.describe()).raw.pendingWorkflowTask;
    return {
      failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
      pendingAttempt: pending?.attempt ?? 0,
    };
  });
}

/** Starts amsflow with `env` over the suite's settings (unique agent and task queue). */
export async function startAmsflowRun(env: Record<string, string> = {}): Promise<AmsflowRun> {
  const agentKey = `p${randomUUID().slice(0, 8)}`;
  const token = `token-${randomUUID()}`;
  const taskQueue = uniqueTaskQueue('no-halt');
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-no-halt-'));
  const sim = await startSimulator({
    port: 0,
    limits: { windowMs: WINDOW_MS },
    agents: [{ id: agentKey, token, creator: 'user:4242', creatorName: 'Tester' }],
  });
  const temporal = await connectDevServer();
  let running: RunningAmsflow;
  let ownClient: Client;
  try {
    const config = loadConfig({
      AMS_TOKEN: token,
      AMS_BASE_URL: sim.url,
      AMSFLOW_AGENT: agentKey,
      TEMPORAL_ADDRESS: devServerAddress(),
      AMSFLOW_TASK_QUEUE: taskQueue,
      AMSFLOW_DATA_DIR: dir,
      AMSFLOW_METRICS_PORT: '0',
      AMSFLOW_LIMITS: JSON.stringify({ windowMs: WINDOW_MS }),
      AMSFLOW_TUNING: JSON.stringify({ pollTimeoutSeconds: 2, receiptSettleMs: 150, minSettleMs: 40 }),
      ...env,
    });
    running = await runAmsflow(config, () => undefined);
    ownClient = new Client({
      connection: temporal.connection,
      dataConverter: dataConverterFor(config.encryptionKeys),
    });
  } catch (err) {
    await sim.close();
    await temporal.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const metricsUrl = running.metricsUrl!;
  return {
    agentKey,
    taskQueue,
    running,
    sim,
    client: temporal.client,
    ownClient,
    async human(text) {
      return (await sim.control.humanText(text, { agent: agentKey })).id;
    },
    async botSaid(text, timeoutMs = 60_000) {
      const fits = (body: string | undefined) =>
        body !== undefined && (typeof text === 'string' ? body === text : text.test(body));
      await waitFor(
        `the bot to say ${String(text)}`,
        async () =>
          (await sim.control.transcript({ agent: agentKey })).sent.some((s) =>
            fits((s.body as { text?: { body?: string } }).text?.body),
          ),
        { timeoutMs },
      );
    },
    async metric(name, labels) {
      return sample(await (await fetch(`${metricsUrl}/metrics`)).text(), name, labels);
    },
    async readyz() {
      const res = await fetch(`${metricsUrl}/readyz`);
      return { status: res.status, body: (await res.json()) as ReadyBody };
    },
    async close() {
      await running.shutdown().catch(() => undefined);
      // The run's workflows stay on the shared server otherwise, with no worker to serve them.
      const query = `ExecutionStatus = 'Running' AND (WorkflowId STARTS_WITH 'agent:${agentKey}' OR WorkflowId STARTS_WITH 'approval:${agentKey}:')`;
      for await (const info of temporal.client.workflow.list({ query }))
        await temporal.client.workflow
          .getHandle(info.workflowId)
          .terminate('test over')
          .catch(() => undefined);
      await sim.close();
      await temporal.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
