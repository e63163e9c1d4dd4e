/**
 * Runs amsflow's workers: one workflow worker (agent workflows and handlers) and one activity
 * worker per service endpoint, each on its own task queue whose server-side rate limit
 * (`maxTaskQueueActivitiesPerSecond`) is the fleet-wide ceiling. Starts the embedded Temporal
 * dev server and the embedded simulator when the configuration asks for them.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities } from '../activities';
import { ensureAgent } from '../client/agents';
import { MessagingClient } from '../messaging/client';
import { resolveLimits, type Limits } from '../messaging/limits';
import { resolveTemporalBinaries } from '../scripts/temporal-binaries';
import { startSimulator, type RunningSimulator } from '../simulator';
import { activityQueue, type Endpoint } from '../protocol/queues';
import type { WorkerConfig } from './config';
import { workflowBundlerOptions } from './bundling';
import { startDevServer, type RunningDevServer } from './dev-server';

export interface RunningAmsflow {
  temporalAddress: string;
  temporalUiUrl?: string;
  /** The embedded simulator's web chat, when it runs. */
  chatUrl?: string;
  simulatorUrl?: string;
  taskQueue: string;
  /** Resolves when every worker has stopped (after {@link shutdown} or a signal). */
  done: Promise<void>;
  /** Stops the workers (long polls cancelled, in-flight sends finished), then everything embedded. */
  shutdown(): Promise<void>;
}

type Log = (line: string) => void;

/** Activities per endpoint queue, the limit whose budget sizes its ceiling, and its drain time. */
const ENDPOINT_QUEUES: {
  endpoint: Endpoint;
  activities: (keyof Activities)[];
  budget: (keyof Limits)[];
  shutdownGraceTime: Duration;
}[] = [
  // A long poll is abandoned at once on shutdown: its page is read again by the next poll.
  { endpoint: 'updates', activities: ['pollUpdates'], budget: ['updates'], shutdownGraceTime: '200ms' },
  // A send in flight is finished, never cut: a cut send is an ambiguous send.
  { endpoint: 'messages', activities: ['sendMessage'], budget: ['messages'], shutdownGraceTime: '40s' },
  {
    endpoint: 'statuses',
    activities: ['markRead', 'sendTyping'],
    budget: ['statuses', 'typing'],
    shutdownGraceTime: '10s',
  },
  {
    endpoint: 'media',
    activities: ['uploadMedia', 'getMedia', 'deleteMedia', 'downloadMedia'],
    budget: ['mediaUpload', 'mediaGet', 'mediaDelete'],
    shutdownGraceTime: '30s',
  },
];

/**
 * Fleet-wide ceiling of an endpoint queue, in activities per second: a whole window's budget of
 * every agent of the fleet per second. The agent workflow's sliding window is the exact pacer;
 * this ceiling only caps a runaway fleet. It is deliberately not the average rate (budget / 60 s):
 * the server enforces it as a token bucket with a burst of about one second's worth, so the
 * average rate would turn the optimal burst (12 sends at once) into one send every 5 s.
 */
export function queueCeiling(limits: Limits, budget: (keyof Limits)[], fleetAgents: number): number {
  return fleetAgents * budget.reduce((sum, key) => sum + limits[key], 0);
}

export async function runAmsflow(
  config: WorkerConfig,
  log: Log = (l) => console.log(l),
): Promise<RunningAmsflow> {
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  try {
    let devServer: RunningDevServer | undefined;
    let temporalAddress = config.temporalAddress;
    if (!temporalAddress) {
      const { cli } = await resolveTemporalBinaries({ log });
      if (cli.kind !== 'path') throw new Error('The embedded Temporal server needs the Temporal CLI on disk');
      // The embedded simulator keeps its conversation in memory, so with it Temporal starts empty
      // too: an agent workflow must never hold an offset of a service that no longer exists.
      const dbFile = join(config.dataDir, config.embeddedSimulator ? 'demo-temporal.db' : 'temporal.db');
      if (config.embeddedSimulator) {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
      }
      devServer = await startDevServer({
        cliPath: cli.path,
        dbFile,
        port: config.devServerPort,
        uiPort: config.devServerUiPort,
        namespace: config.namespace,
      });
      cleanups.push(() => devServer!.stop());
      temporalAddress = devServer.address;
      log(`amsflow: embedded Temporal dev server at ${temporalAddress} (UI ${devServer.uiUrl})`);
    }

    let simulator: RunningSimulator | undefined;
    let agents = config.agents;
    if (config.embeddedSimulator) {
      const token = `sim-${randomBytes(12).toString('hex')}`;
      simulator = await startSimulator({
        port: config.simulatorPort,
        agents: [{ id: config.agents[0].agentKey, token, creator: 'user:1001', creatorName: 'You' }],
        limits: config.limits,
      });
      cleanups.push(() => simulator!.close());
      agents = [{ ...config.agents[0], token, baseUrl: simulator.url }];
      log(`amsflow: embedded simulator at ${simulator.url}; web chat: ${simulator.chat}`);
    }

    const limits = resolveLimits(config.limits);
    const registry = new Map<string, MessagingClient>();
    for (const agent of agents) {
      // Engine clients neither pace nor retry: the agent workflow paces durably and decides retries.
      registry.set(
        agent.agentKey,
        new MessagingClient({
          token: agent.token,
          baseUrl: agent.baseUrl,
          rateLimit: false,
          maxRetries: 0,
          autoDiscover: false,
          limits,
        }),
      );
    }
    cleanups.push(async () => {
      for (const client of registry.values()) await client.close();
    });

    const nativeConnection = await NativeConnection.connect({ address: temporalAddress });
    cleanups.push(() => nativeConnection.close());
    const connection = await Connection.connect({ address: temporalAddress });
    cleanups.push(() => connection.close());
    const client = new Client({ connection, namespace: config.namespace });

    const activities = createActivities(registry);
    const base: Pick<WorkerOptions, 'connection' | 'namespace'> = {
      connection: nativeConnection,
      namespace: config.namespace,
    };
    const workers: Worker[] = [
      await Worker.create({
        ...base,
        taskQueue: config.taskQueue,
        // A worker killed with SIGKILL never says goodbye; its sticky queue is given up after this.
        stickyQueueScheduleToStartTimeout: '3s',
        // The bot's own activities, on the task queue its workflows call by default.
        ...(config.activitiesPath ? { activities: await loadBotActivities(config.activitiesPath) } : {}),
        ...(config.workflowBundlePath
          ? { workflowBundle: { codePath: config.workflowBundlePath } }
          : { workflowsPath: config.workflowsPath, bundlerOptions: workflowBundlerOptions() }),
      }),
    ];
    for (const queue of ENDPOINT_QUEUES) {
      workers.push(
        await Worker.create({
          ...base,
          taskQueue: activityQueue(config.taskQueue, queue.endpoint),
          // The activities are closures over the registry; none uses `this`.
          // eslint-disable-next-line @typescript-eslint/unbound-method
          activities: Object.fromEntries(queue.activities.map((name) => [name, activities[name]])),
          maxTaskQueueActivitiesPerSecond: queueCeiling(limits, queue.budget, config.fleetAgents),
          maxConcurrentActivityTaskExecutions: Math.max(10, agents.length * 2),
          shutdownGraceTime: queue.shutdownGraceTime,
        }),
      );
    }
    const running = workers.map((w) => w.run());

    for (const agent of agents) {
      await ensureAgent(client, {
        agentKey: agent.agentKey,
        taskQueue: config.taskQueue,
        limits: config.limits,
        tuning: config.tuning,
        handlerWorkflowType: agent.handlerWorkflowType,
        recipient: agent.recipient,
        botConfig: config.botConfig,
      });
      log(`amsflow: agent "${agent.agentKey}" is running (workflow agent:${agent.agentKey})`);
    }

    const done = Promise.allSettled(running).then(async (results) => {
      await cleanup();
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    });
    return {
      temporalAddress,
      temporalUiUrl: devServer?.uiUrl,
      chatUrl: simulator?.chat,
      simulatorUrl: simulator?.url,
      taskQueue: config.taskQueue,
      done,
      async shutdown() {
        for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
        await done;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** The functions a bot's activities module exports (`AMSFLOW_ACTIVITIES`). */
async function loadBotActivities(path: string): Promise<Record<string, (...args: unknown[]) => unknown>> {
  const loaded = (await import(path)) as Record<string, unknown>;
  const functions = Object.entries(loaded).filter(
    (entry): entry is [string, (...args: unknown[]) => unknown] => typeof entry[1] === 'function',
  );
  if (functions.length === 0) throw new Error(`AMSFLOW_ACTIVITIES: ${path} exports no functions`);
  return Object.fromEntries(functions);
}
