/**
 * The one engine-worker factory: the workers that run amsflow's engine for a set of agents. One
 * workflow worker (the agent workflows, the bot's handlers, reminders' and the bot's own
 * activities) on the agent task queue, and one activity worker per service endpoint on its own
 * queue with its fleet-wide ceiling (engine-queues.ts). `runAmsflow` (worker/run.ts) and the bot
 * test harness (testing/bot-test-env.ts) both build their workers here and differ only in the
 * options they pass.
 *
 * Every worker of a process is one build of a Worker Deployment (versioning.ts): a workflow the
 * build starts stays on it; the agent and reminders move at continue-as-new (protocol/deployments.ts).
 */
import { getHeapStatistics } from 'node:v8';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { AgentRegistry } from './agent-registry';
import { cacheBound } from './cache-bound';
import { askLeaseVia } from './poll-lease';
import { createActivities } from '../activities';
import { createModelActivities, type WorkerModel } from '../activities/model-calls';
import { createScheduleActivities } from '../activities/schedules';
import { createRoutingActivities } from '../activities/routing-proof';
import type { Limits } from '../messaging/limits';
import type { BuildRef } from '../protocol/deployments';
import { endpointQueuePlan } from './engine-queues';
import { deploymentOptions, resolveBuild } from './versioning';

/** An agent the workers serve: its token stays in this process, never in workflow state. */
export interface EngineAgent {
  agentKey: string;
  token: string;
  baseUrl?: string;
}

/** A bot's own activities, served on the agent task queue. */
export type BotActivities = Record<string, (...args: never[]) => unknown>;

export interface EngineWorkersOptions {
  connection: NativeConnection;
  namespace?: string;
  /** The same data converter as the client's (encryption at rest). */
  dataConverter?: DataConverter;
  /** The agent task queue; the endpoint queues are named after it. */
  taskQueue: string;
  /** The bot with amsflow's own workflows (worker/bot-bundle.ts). */
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  agents: readonly EngineAgent[];
  /** The service's limits, resolved: the ceilings and the clients' checks. */
  limits: Limits;
  /** Origins besides the service's that media downloads may carry the token to. */
  mediaOrigins?: readonly string[];
  /** Workflows kept in the worker's cache at most. Default: 40 % of the heap limit at 1 MB each. */
  maxCachedWorkflows?: number;
  /** Agents of the whole fleet, for the ceilings. Default: `agents.length`. */
  fleetAgents?: number;
  /** The client reminders' activities start and signal workflows with. */
  client: Client;
  /** The human's default time zone for reminders, and agents' own ones (agentKey -> zone). */
  timeZone?: string;
  timeZones?: Record<string, string>;
  botActivities?: BotActivities;
  /** The model of model turns (`AMSFLOW_MODEL`); none: turns answer `noModel`. */
  model?: WorkerModel;
  /** Interceptors (and sinks) added to every worker: the process's observability. */
  interceptors?: WorkerOptions['interceptors'];
  sinks?: WorkerOptions['sinks'];
  /** False: work in flight is cut at once on shutdown (a test's teardown). Default true. */
  drain?: boolean;
  /**
   * False: polls start without Temporal's acknowledgement of their attempt (the poll lease,
   * protocol/agent.ts). Only for a server on loopback that no network can cut off (the
   * time-skipping test harness, whose child it is). Default true.
   */
  pollLease?: boolean;
  /**
   * After a poll ended aborted (cancelled, or ended by a newer one), how long the agent's next
   * poll on this worker waits, so that the aborted request's close reaches the service first
   * (activities/open-polls.ts). Default 1000 ms; 0: none.
   */
  pollCloseGraceMs?: number;
  /**
   * Where poll attempts note their process, so that the poll after one whose worker died need not
   * wait out the poll lease (activities/poll-tickets.ts). Default: a directory per user under the
   * system's temporary directory; false: none (every such poll waits the lease's whole wait).
   */
  pollTicketsDir?: string | false;
  /** The id of `namespace` at Temporal, for the poll tickets (activities/poll-tickets.ts). */
  namespaceId?: string;
  /**
   * The build these workers are: default deployment the task queue's name, default build id the
   * bundle's digest. `false`: unversioned (a server without Worker Deployments).
   */
  versioning?: Partial<BuildRef> | false;
}

export interface EngineWorkers {
  /** The workflow worker first, then one per endpoint queue; none is running yet. */
  workers: Worker[];
  /** Closes the engine's messaging clients (after the workers have stopped). */
  closeClients(): Promise<void>;
  /** The build the workers are; undefined when unversioned. */
  build?: BuildRef;
  /** The agents served and their clients (a fleet reload changes them while the workers run). */
  registry: AgentRegistry;
}

/** The activities of the endpoint queues, over the registry's clients. */
function engineActivities(options: EngineWorkersOptions, registry: AgentRegistry) {
  const { pollCloseGraceMs, pollTicketsDir, namespaceId } = options;
  const askLease = options.pollLease === false ? undefined : askLeaseVia(options.connection);
  return createActivities(registry, { askLease, pollCloseGraceMs, pollTicketsDir, namespaceId });
}

/** Creates the engine's workers; `run()` each, and `closeClients()` once they have stopped. */
export async function createEngineWorkers(options: EngineWorkersOptions): Promise<EngineWorkers> {
  const registry = new AgentRegistry(options.limits, options.mediaOrigins, options.agents);
  const closeClients = () => registry.close();
  const build =
    options.versioning === false
      ? undefined
      : resolveBuild(options.versioning ?? {}, options.taskQueue, options.workflowBundle);
  const base = {
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    dataConverter: options.dataConverter,
    interceptors: options.interceptors,
    sinks: options.sinks,
    workerDeploymentOptions: build ? deploymentOptions(build) : undefined,
  } satisfies Partial<WorkerOptions>;
  try {
    const activities = engineActivities(options, registry);
    const schedules = createScheduleActivities(options.client, {
      taskQueue: options.taskQueue,
      timeZone: options.timeZone,
      timeZones: options.timeZones,
    });
    const model = createModelActivities(options.client, {
      taskQueue: options.taskQueue,
      model: options.model,
      zoneOf: async (agentKey) => (await schedules.amsflowRemindersRead(agentKey)).defaultTimeZone,
    });
    const workflowWorker = await Worker.create({
      ...base,
      taskQueue: options.taskQueue,
      // Bounded by the heap (cache-bound.ts): idle agents leave the cache and cost nothing until
      // their next page, which replays them.
      maxCachedWorkflows: options.maxCachedWorkflows ?? cacheBound(getHeapStatistics().heap_size_limit),
      // A worker killed with SIGKILL never says goodbye; its sticky queue is given up after this.
      stickyQueueScheduleToStartTimeout: '3s',
      // Reminders', model turns' and approvals' activities (they hold a client) and the bot's own,
      // on the task queue its workflows call by default.
      activities: {
        ...schedules,
        ...model,
        ...createRoutingActivities(options.client),
        ...options.botActivities,
      },
      workflowBundle: options.workflowBundle,
    });
    const plan = endpointQueuePlan({
      taskQueue: options.taskQueue,
      limits: options.limits,
      fleetAgents: options.fleetAgents ?? options.agents.length,
      agents: options.agents.length,
      drain: options.drain,
    });
    const endpointWorkers = await Promise.all(
      plan.map(({ endpoint: _endpoint, activities: names, ...settings }) =>
        Worker.create({
          ...base,
          ...settings,
          // The activities are closures over the registry; none uses `this`.
          // eslint-disable-next-line @typescript-eslint/unbound-method
          activities: Object.fromEntries(names.map((name) => [name, activities[name]])),
        }),
      ),
    );
    const workers = [workflowWorker, ...endpointWorkers];
    return { workers, closeClients, build, registry };
  } catch (err) {
    await closeClients();
    throw err;
  }
}
