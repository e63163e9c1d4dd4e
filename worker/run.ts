/**
 * Runs amsflow's workers: one workflow worker (agent workflows and handlers) and one activity
 * worker per service endpoint, each on its own task queue whose server-side rate limit
 * (`maxTaskQueueActivitiesPerSecond`) is the fleet-wide ceiling (worker/engine-workers.ts, the
 * factory the bot test harness uses too). Starts the embedded Temporal dev server and the
 * embedded simulator when the configuration asks for them.
 *
 * `runAmsflow` is a sequence of named steps, each in its own file: note the polls of ended worker
 * processes (ended-polls.ts) → bundle the bot → prepare the data dir (data-dir.ts) → start the
 * simulator (embedded-simulator.ts) → start or connect to Temporal (embedded-temporal.ts) → reset
 * the sticky queues of those polls' workflows, then give the polls up in the background → create
 * the workers (engine-workers.ts) → run them (supervise-workers.ts) → promote their build
 * (deploy-step.ts) → ensure the agents (ensure-agents.ts) → follow the agents file
 * (fleet-step.ts); the drain is `shutdown()`. Each step pushes the stop of what it started
 * (cleanups.ts), so a failed start stops what runs.
 *
 * What the embedded parts keep, under the data dir (`AMSFLOW_DATA_DIR`, default `.amsflow`):
 * - `demo/`: the demo (embedded simulator): its conversation (`simulator.json`, media bytes in
 *   `simulator-media/`) and, with the embedded server, Temporal's data (`temporal.db`). The two
 *   belong together: an agent workflow holds an offset into that conversation, so they are kept
 *   and resumed together, and deleting `demo/` starts the demo afresh.
 * - `temporal.db`: the embedded server's data when the worker serves the real service.
 * - `amsflow.pid`: held while a worker uses the data dir, so that two never share it.
 */
import { readFileSync } from 'node:fs';
import { Runtime } from '@temporalio/worker';
import { resolveLimits } from '../messaging/limits';
import type { RunningSimulator } from '../simulator';
import { bundleBot, DEFAULT_HANDLER_WORKFLOW_TYPE } from './bot-bundle';
import { loadBotActivities } from './bot-activities';
import { Cleanups } from './cleanups';
import { dataConverterFor } from '../codec';
import { agentTimeZones, type AgentConfig, type WorkerConfig } from './config';
import { prepareDataDir } from './data-dir';
import type { RunningDevServer } from './dev-server';
import { startEmbeddedSimulator } from './embedded-simulator';
import { connectTemporal, startEmbeddedTemporal, type TemporalConnections } from './embedded-temporal';
import { createEngineWorkers, type EngineWorkers } from './engine-workers';
import { deployStep } from './deploy-step';
import { EndedPolls, namespaceIdOf } from './ended-polls';
import { POLL_CLOSE_GRACE_MS } from '../activities/open-polls';
import { PollTickets } from '../activities/poll-tickets';
import { ensureAgents } from './ensure-agents';
import { fleetStep } from './fleet-step';
import { loadWorkerModel } from './model-config';
import { Observability } from './observability';
import type { Log, RunningAmsflow } from './run-types';
import { superviseWorkers } from './supervise-workers';

export type { Log, ResumeInfo, RunningAmsflow } from './run-types';
export { DataDirInUseError, lockDataDir } from './data-dir';
export { botCommands, formatBanner, type BotCommand } from './banner';
export { queueCeiling } from './engine-queues';

/** The bot with amsflow's own workflows: a module without its handler starts nothing. */
async function bundleStep(config: WorkerConfig, log: Log): Promise<{ codePath: string } | { code: string }> {
  const tracing = config.observability.tracing === 'otlp';
  if (config.workflowBundlePath) {
    // A prebuilt bundle has tracing's workflow interceptors only if it was bundled with them.
    if (tracing && !readFileSync(config.workflowBundlePath, 'utf8').includes(TRACING_MARK)) {
      log(
        `amsflow: ${config.workflowBundlePath} was bundled without tracing: no workflow spans, activity spans only`,
      );
    }
    return { codePath: config.workflowBundlePath };
  }
  return bundleBot({
    workflowsPath: config.workflowsPath,
    handlers: [...new Set(config.agents.map((a) => a.handlerWorkflowType ?? DEFAULT_HANDLER_WORKFLOW_TYPE))],
    failureConverterPath: dataConverterFor(config.encryptionKeys)?.failureConverterPath,
    logger: Runtime.instance().logger,
    tracing,
  });
}

/** A name only a bundle with tracing's workflow interceptors holds (workflows/engine/tracing.ts). */
const TRACING_MARK = 'AgentTraceJoin';

/** The workers of a run, over the process's observability. */
async function workersStep(
  config: WorkerConfig,
  obs: Observability,
  temporal: TemporalConnections,
  agents: AgentConfig[],
  workflowBundle: { codePath: string } | { code: string },
  botActivities: Awaited<ReturnType<typeof loadBotActivities>> | undefined,
  namespaceId: string | undefined,
): Promise<EngineWorkers> {
  return createEngineWorkers({
    connection: temporal.nativeConnection,
    namespace: config.namespace,
    namespaceId,
    dataConverter: temporal.dataConverter,
    taskQueue: config.taskQueue,
    workflowBundle,
    agents,
    limits: resolveLimits(config.limits),
    mediaOrigins: config.mediaOrigins,
    fleetAgents: config.fleetAgents,
    maxCachedWorkflows: config.maxCachedWorkflows,
    client: temporal.client,
    timeZone: config.timeZone,
    timeZones: agentTimeZones(config.agents),
    botActivities,
    versioning: config.deploy.versioned
      ? { deploymentName: config.deploy.deploymentName, buildId: config.deploy.buildId }
      : false,
    model: config.model ? await loadWorkerModel(config.model) : undefined,
    ...obs.workerOptions(),
  });
}

/**
 * Polls left open at Temporal by worker processes that ended here (seen as this run started):
 * their workflows' sticky queues reset now, before anything signals them, and the polls given up
 * in the background, while the workers are being made.
 */
async function endedPollsStep(
  ended: EndedPolls,
  namespaceId: string | undefined,
  temporal: TemporalConnections,
  log: Log,
): Promise<void> {
  ended.keepNamespace(namespaceId);
  if (ended.size === 0) return;
  await ended.resetSticky(temporal.nativeConnection);
  void ended.giveUp(temporal.nativeConnection, POLL_CLOSE_GRACE_MS).then(
    (n) =>
      n > 0 && log(`amsflow: ${n} poll(s) of ended worker processes given up; their agents poll again now`),
    (err: unknown) => log(`amsflow: polls of ended worker processes not given up: ${String(err)}`),
  );
}

/** What the start steps have up, for the run and its answer. */
interface Started {
  agents: AgentConfig[];
  simulator?: RunningSimulator;
  devServer?: RunningDevServer;
  temporalAddress: string;
}

/** The simulator (its state checked and its port taken before the slower server starts), then Temporal. */
async function startEmbedded(
  config: WorkerConfig,
  log: Log,
  cleanups: Cleanups,
  dataDir: ReturnType<typeof prepareDataDir>,
): Promise<Started> {
  let agents = config.agents;
  let simulator: RunningSimulator | undefined;
  if (config.embeddedSimulator) {
    const embedded = await startEmbeddedSimulator(config, dataDir.stateFile, dataDir.resume.demoDir);
    simulator = embedded.simulator;
    cleanups.push(() => embedded.simulator.close());
    dataDir.resume.chat = simulator.state;
    agents = embedded.agents;
    log(`amsflow: embedded simulator at ${simulator.url}; web chat: ${simulator.chat}`);
  }
  const devServer = config.temporalAddress
    ? undefined
    : await startEmbeddedTemporal(config, dataDir.resume.temporalDb!, log, cleanups);
  const temporalAddress = config.temporalAddress ?? devServer!.address;
  return { agents, simulator, devServer, temporalAddress };
}

export async function runAmsflow(
  config: WorkerConfig,
  log: Log = (l) => console.log(l),
  /** The process's observability (worker/main.ts makes it first); by default one of this run's own. */
  observability?: Observability,
): Promise<RunningAmsflow> {
  const cleanups = new Cleanups();
  const obs = observability ?? new Observability(config.observability);
  // What this start creates under the data dir goes again if it fails (worker/start-leftovers.ts).
  const leftovers: (() => void)[] = [];
  let run: ReturnType<typeof superviseWorkers> | undefined;
  try {
    if (!observability) cleanups.push(() => obs.close());
    // First: the close grace of a dead worker's polls counts from here (ended-polls.ts).
    const endedPolls = new EndedPolls(new PollTickets());
    await obs.start();
    // The bot's own activities first: a module that does not load (AMSFLOW_ACTIVITIES) is named
    // before anything is bundled or started.
    const botActivities = config.activitiesPath ? await loadBotActivities(config.activitiesPath) : undefined;
    const workflowBundle = await bundleStep(config, log);
    const dataDir = prepareDataDir(config, log, cleanups, leftovers);
    const started = await startEmbedded(config, log, cleanups, dataDir);
    const { agents, simulator } = started;
    obs.secrets([
      ...agents.map((a) => a.token),
      config.model && 'apiKey' in config.model ? config.model.apiKey : undefined,
      config.temporal?.apiKey,
    ]);
    const temporal = await connectTemporal(config, started.temporalAddress, cleanups, log);
    // The namespace's id: the poll tickets are this machine's, the workers' of any cluster.
    const namespaceId = await namespaceIdOf(temporal.nativeConnection, config.namespace);
    await endedPollsStep(endedPolls, namespaceId, temporal, log);
    // The agent checks use the client's connection: none may be in flight when it closes
    // (AgentHealthMonitor.stop). Cleanups run last-in first: this one before the close.
    cleanups.push(() => obs.stopWatching());
    const engine = await workersStep(
      config,
      obs,
      temporal,
      agents,
      workflowBundle,
      botActivities,
      namespaceId,
    );
    cleanups.push(() => engine.closeClients());
    // Once the workers have stopped nothing talks to the simulator: its last write comes first.
    if (simulator) cleanups.push(() => simulator.close());
    run = superviseWorkers(
      engine.workers,
      () => obs.stopping(),
      () => cleanups.run(),
    );
    const stop = () => {
      obs.stopping();
      run?.stop();
    };
    // New workflows (the agents' first ones too) start on the current build: promoted first.
    if (engine.build) await deployStep(config, temporal.client, engine.build, stop, log, cleanups);
    await ensureAgents(temporal.client, config, agents, log);
    fleetStep(config, temporal.client, engine.registry, obs, agents, log, cleanups);
    obs.running(engine.workers, temporal.nativeConnection);
    obs.watchAgents(
      temporal.client,
      agents.map((a) => a.agentKey),
    );
    return answer(config, started, dataDir.resume, obs, run);
  } catch (err) {
    // Workers already running stop before what they use does (their end runs the cleanups).
    run?.stop();
    await run?.done.catch(() => undefined);
    await cleanups.run();
    for (const discard of leftovers) discard();
    throw err;
  }
}

/** The running amsflow: where everything is, and its drain. */
function answer(
  config: WorkerConfig,
  started: Started,
  resume: RunningAmsflow['resume'],
  obs: Observability,
  run: ReturnType<typeof superviseWorkers>,
): RunningAmsflow {
  return {
    temporalAddress: started.temporalAddress,
    temporalUiUrl: started.devServer?.uiUrl,
    chatUrl: started.simulator?.chat,
    simulatorUrl: started.simulator?.url,
    metricsUrl: obs.url,
    ...(config.model ? { model: config.model.name } : {}),
    taskQueue: config.taskQueue,
    agents: started.agents.map((a) => ({ agentKey: a.agentKey, baseUrl: a.baseUrl })),
    resume,
    done: run.done,
    async shutdown() {
      obs.stopping();
      run.stop();
      await run.done;
    },
  };
}
