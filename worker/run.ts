/**
 * Runs amsflow's workers: one workflow worker (agent workflows and handlers) and one activity
 * worker per service endpoint, each on its own task queue whose server-side rate limit
 * (`maxTaskQueueActivitiesPerSecond`) is the fleet-wide ceiling. Starts the embedded Temporal
 * dev server and the embedded simulator when the configuration asks for them.
 *
 * What the embedded parts keep, under the data dir (`AMSFLOW_DATA_DIR`, default `.amsflow`):
 * - `demo/`: the demo (embedded simulator): its conversation (`simulator.json`, media bytes in
 *   `simulator-media/`) and, with the embedded server, Temporal's data (`temporal.db`). The two
 *   belong together: an agent workflow holds an offset into that conversation, so they are kept
 *   and resumed together, and deleting `demo/` starts the demo afresh.
 * - `temporal.db`: the embedded server's data when the worker serves the real service.
 * - `amsflow.pid`: held while a worker uses the data dir, so that two never share it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities } from '../activities';
import { createScheduleActivities } from '../activities/schedules';
import { resumeAgent } from '../client/agent-resume';
import { ensureAgent } from '../client/agents';
import { MessagingClient } from '../messaging/client';
import { resolveLimits, type Limits } from '../messaging/limits';
import { resolveTemporalBinaries } from '../scripts/temporal-binaries';
import { SimulatorStateError, startSimulator, type RestoredState, type RunningSimulator } from '../simulator';
import { mediaDirOf } from '../simulator/state-file';
import { activityQueue, type Endpoint } from '../protocol/queues';
import { agentTimeZones, type WorkerConfig } from './config';
import { bundleBot, DEFAULT_HANDLER_WORKFLOW_TYPE } from './bot-bundle';
import { dataConverterFor } from './codec';
import { claimablePort, PortInUseError, startDevServer, type RunningDevServer } from './dev-server';
import { Observability } from './observability';
import { noteFreshPaths } from './start-leftovers';

export interface RunningAmsflow {
  temporalAddress: string;
  temporalUiUrl?: string;
  /** The embedded simulator's web chat, when it runs. */
  chatUrl?: string;
  simulatorUrl?: string;
  /** `/metrics`, `/healthz` and `/readyz` are served here (unless `AMSFLOW_METRICS_PORT=off`). */
  metricsUrl?: string;
  taskQueue: string;
  /** The agents served, with the service each one talks to. */
  agents: { agentKey: string; baseUrl?: string }[];
  /** What this start found under the data dir: a fresh start or a resumed one. */
  resume: ResumeInfo;
  /** Resolves when every worker has stopped (after {@link shutdown} or a signal). */
  done: Promise<void>;
  /** Stops the workers (long polls cancelled, in-flight sends finished), then everything embedded. */
  shutdown(): Promise<void>;
}

type Log = (line: string) => void;

/** What `npm start` found under the data dir. */
export interface ResumeInfo {
  /** The data dir (absolute). */
  dataDir: string;
  /** Where the demo keeps its conversation and its Temporal data, with the embedded simulator. */
  demoDir?: string;
  /** The embedded simulator's state file and what was in it. */
  chat?: RestoredState;
  /** The embedded server's database, when it runs. */
  temporalDb?: string;
  /** Whether that database was there already (a resumed Temporal). */
  temporalResumed: boolean;
}

/** Another worker holds the data dir (its `amsflow.pid`). */
export class DataDirInUseError extends Error {
  readonly code = 'AMSFLOW_DATA_DIR_IN_USE';
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(
      `Another amsflow (pid ${pid}) is using the data in ${join(file, '..')}: stop it first (two runs ` +
        'must not share one conversation and one Temporal database), or set AMSFLOW_DATA_DIR to another ' +
        `folder. If no amsflow is running, delete ${file}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `<dataDir>/amsflow.pid`; returns its release. Throws {@link DataDirInUseError}. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'amsflow.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
        } catch {
          // Gone already.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(file, 'utf8').trim());
    } catch {
      // Removed meanwhile, or unreadable: treated as stale.
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new DataDirInUseError(file, holder);
    }
    // Left by a run that was killed: take it over.
    rmSync(file, { force: true });
  }
}

const removeDb = (file: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
};

/** A port that should be free; `0` (any) always is. */
async function mustBeFree(port: number, role: PortInUseError['role']): Promise<void> {
  if (port !== 0) await claimablePort(port, role, 5_000);
}

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
  /** The process's observability (worker/main.ts makes it first); by default one of this run's own. */
  observability?: Observability,
): Promise<RunningAmsflow> {
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  const obs = observability ?? new Observability(config.observability);
  // What this start creates under the data dir goes again if it fails (worker/start-leftovers.ts).
  const leftovers: (() => void)[] = [];
  try {
    if (!observability) cleanups.push(() => obs.close());
    await obs.start();
    // The bot with amsflow's own workflows, first: a module without its handler starts nothing.
    const workflowBundle = config.workflowBundlePath
      ? { codePath: config.workflowBundlePath }
      : await bundleBot({
          workflowsPath: config.workflowsPath,
          handlers: [
            ...new Set(config.agents.map((a) => a.handlerWorkflowType ?? DEFAULT_HANDLER_WORKFLOW_TYPE)),
          ],
          failureConverterPath: dataConverterFor(config.encryptionKeys)?.failureConverterPath,
          logger: Runtime.instance().logger,
        });
    const usesDataDir = !config.temporalAddress || config.embeddedSimulator;
    if (usesDataDir) {
      leftovers.push(noteFreshPaths([config.dataDir]));
      const release = lockDataDir(config.dataDir);
      cleanups.push(() => Promise.resolve(release()));
    }
    const demoDir = config.embeddedSimulator ? join(config.dataDir, 'demo') : undefined;
    const stateFile = demoDir && join(demoDir, 'simulator.json');
    const temporalDb = config.temporalAddress ? undefined : join(demoDir ?? config.dataDir, 'temporal.db');
    if (temporalDb && stateFile && !existsSync(stateFile) && existsSync(temporalDb)) {
      // Agent workflows hold offsets into a conversation that is gone: they must not resume.
      log(`amsflow: no conversation in ${stateFile}, so the demo's Temporal data start afresh too`);
      removeDb(temporalDb);
    }
    leftovers.push(noteFreshPaths([demoDir, stateFile, stateFile && mediaDirOf(stateFile), temporalDb]));
    const resume: ResumeInfo = {
      dataDir: config.dataDir,
      demoDir,
      temporalDb,
      temporalResumed: temporalDb !== undefined && existsSync(temporalDb),
    };

    // The simulator first: its state is checked (and its port taken) before the slower server starts.
    let simulator: RunningSimulator | undefined;
    let agents = config.agents;
    if (config.embeddedSimulator) {
      await mustBeFree(config.simulatorPort, 'simulator');
      // A new token each start: the token is never in workflow state, only in this process.
      const token = `sim-${randomBytes(12).toString('hex')}`;
      simulator = await startSimulator({
        port: config.simulatorPort,
        agents: [
          {
            id: config.agents[0].agentKey,
            token,
            creator: 'user:1001',
            creatorName: 'You',
            // The chat's header names the bot: its module's name ("reference bot").
            name: basename(config.workflowsPath)
              .replace(/\.[cm]?[jt]s$/, '')
              .replace(/[-_]+/g, ' '),
          },
        ],
        limits: config.limits,
        stateFile,
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') throw new PortInUseError(config.simulatorPort, 'simulator');
        if (err instanceof SimulatorStateError) {
          throw new SimulatorStateError(
            err.file,
            err.problem,
            `stop amsflow and delete ${demoDir} (the chat and the demo's Temporal data go together)`,
          );
        }
        throw err;
      });
      cleanups.push(() => simulator!.close());
      resume.chat = simulator.state;
      agents = [{ ...config.agents[0], token, baseUrl: simulator.url }];
      log(`amsflow: embedded simulator at ${simulator.url}; web chat: ${simulator.chat}`);
    }

    let devServer: RunningDevServer | undefined;
    let temporalAddress = config.temporalAddress;
    if (!temporalAddress) {
      const { cli } = await resolveTemporalBinaries({ log });
      if (cli.kind !== 'path') throw new Error('The embedded Temporal server needs the Temporal CLI on disk');
      devServer = await startDevServer({
        cliPath: cli.path,
        dbFile: temporalDb!,
        port: config.devServerPort,
        uiPort: config.devServerUiPort,
        namespace: config.namespace,
      });
      cleanups.push(() => devServer!.stop());
      temporalAddress = devServer.address;
      log(`amsflow: embedded Temporal dev server at ${temporalAddress} (UI ${devServer.uiUrl})`);
    }

    obs.secrets(agents.map((a) => a.token));
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
    // Encryption at rest (AMSFLOW_ENCRYPTION_KEYS): the same data converter for the client and every worker.
    const dataConverter = dataConverterFor(config.encryptionKeys);
    const client = new Client({ connection, namespace: config.namespace, dataConverter });

    const activities = createActivities(registry);
    const base: Pick<WorkerOptions, 'connection' | 'namespace' | 'dataConverter'> = {
      connection: nativeConnection,
      namespace: config.namespace,
      dataConverter,
    };
    const workers: Worker[] = [
      await Worker.create({
        ...base,
        ...obs.workerOptions(),
        taskQueue: config.taskQueue,
        // A worker killed with SIGKILL never says goodbye; its sticky queue is given up after this.
        stickyQueueScheduleToStartTimeout: '3s',
        // Reminders' activities (they hold a client) and the bot's own, on the task queue its
        // workflows call by default.
        activities: {
          ...createScheduleActivities(client, {
            taskQueue: config.taskQueue,
            timeZone: config.timeZone,
            timeZones: agentTimeZones(config.agents),
          }),
          ...(config.activitiesPath ? await loadBotActivities(config.activitiesPath) : {}),
        },
        workflowBundle,
      }),
    ];
    for (const queue of ENDPOINT_QUEUES) {
      workers.push(
        await Worker.create({
          ...base,
          ...obs.workerOptions(),
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
    // Once the workers have stopped nothing talks to the simulator: its last write comes first.
    if (simulator) cleanups.push(() => simulator.close());
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
      // An agent a refusal stopped (a bad token) polls again: this worker may hold a new token.
      await resumeAgent(client, agent.agentKey, 'worker start');
      log(`amsflow: agent "${agent.agentKey}" is running (workflow agent:${agent.agentKey})`);
    }
    obs.running(workers, nativeConnection);
    obs.watchAgents(
      client,
      agents.map((a) => a.agentKey),
    );

    // One worker failing ends them all: a half-working process would stay up (health 200, ready
    // 503) and never be restarted; ended, it exits non-zero and its supervisor starts it again.
    for (const run of running) {
      run.catch(() => {
        obs.stopping();
        for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      });
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
      metricsUrl: obs.url,
      taskQueue: config.taskQueue,
      agents: agents.map((a) => ({ agentKey: a.agentKey, baseUrl: a.baseUrl })),
      resume,
      done,
      async shutdown() {
        obs.stopping();
        for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
        await done;
      },
    };
  } catch (err) {
    await cleanup();
    for (const discard of leftovers) discard();
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

/** One command of a bot, as the banner lists it. */
export interface BotCommand {
  command: string;
  description: string;
}

/**
 * The commands a bot module announces: its `COMMANDS` export (`{ command, description }[]`), else
 * the lines of its `HELP_TEXT`; none when it has neither or cannot be loaded outside a workflow.
 */
export async function botCommands(workflowsPath: string): Promise<BotCommand[]> {
  let bot: Record<string, unknown>;
  try {
    bot = (await import(workflowsPath)) as Record<string, unknown>;
  } catch {
    return [];
  }
  const listed = bot.COMMANDS;
  if (
    Array.isArray(listed) &&
    listed.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as BotCommand).command === 'string' &&
        typeof (c as BotCommand).description === 'string',
    )
  ) {
    return (listed as BotCommand[]).map(({ command, description }) => ({ command, description }));
  }
  if (typeof bot.HELP_TEXT === 'string') {
    return bot.HELP_TEXT.split('\n')
      .map((line) => line.replace(/^\s*[•*-]\s*/, '').trim())
      .filter((line) => line && !line.endsWith(':'))
      .map((line) => {
        const [command, ...rest] = line.split(/\s+[—-]\s+/);
        return { command, description: rest.join(' - ') };
      });
  }
  return [];
}

/** What `npm start` prints once everything runs: where to go, what to write, what was resumed. */
export function formatBanner(running: RunningAmsflow, commands: BotCommand[] = []): string {
  const { resume } = running;
  const lines: string[] = [''];
  if (resume.chat) {
    const chat = resume.chat;
    lines.push(
      chat.resumed
        ? `amsflow: resuming: ${chat.messages} message${chat.messages === 1 ? '' : 's'} in the chat`
        : 'amsflow: fresh start: a new chat',
    );
    if (chat.unclean) {
      lines.push('  (the last run did not stop cleanly: its last moments before the end may be missing)');
    }
    if (chat.resumed && resume.temporalDb && !resume.temporalResumed) {
      lines.push(`  (${resume.temporalDb} was missing: conversations in progress were not resumed)`);
    }
  } else {
    const where = running.agents.map((a) => `"${a.agentKey}" at ${a.baseUrl ?? 'the default service URL'}`);
    lines.push(`amsflow: serving the real service: agent ${where.join(', ')}`);
  }
  const pad = (label: string) => `  ${label.padEnd(14)}`;
  if (running.chatUrl) lines.push(`${pad('web chat')}${running.chatUrl}`);
  if (running.temporalUiUrl) lines.push(`${pad('Temporal UI')}${running.temporalUiUrl}`);
  if (commands.length > 0) {
    const width = Math.max(...commands.map((c) => c.command.length));
    lines.push(
      `${pad('bot commands')}${commands.map((c) => `${c.command.padEnd(width)}  ${c.description}`.trimEnd()).join(`\n${pad('')}`)}`,
    );
  }
  if (resume.demoDir) {
    lines.push(
      `${pad('data')}${resume.demoDir}: the next npm start resumes from it; delete it to start afresh`,
    );
  } else if (resume.temporalDb) {
    const kept = resume.temporalResumed ? 'resumed' : 'new';
    lines.push(`${pad('data')}${resume.temporalDb} (Temporal, ${kept}): the next start resumes from it`);
  }
  lines.push('amsflow: running; Ctrl-C stops everything');
  return lines.join('\n');
}
