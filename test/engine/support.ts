/**
 * Harness of the engine suites: the shared dev server, a simulator in this process, and real
 * worker processes (`worker/main.ts`) that can be killed with SIGKILL and started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator';
import type { AgentTuning } from '../../protocol';
import { bundle, connectDevServer, devServerAddress, waitFor } from '../support/temporal';
import { collectLines } from '../support/output-lines';

const projectRoot = resolve(__dirname, '..', '..');

/** Bundles test/engine/workflows.ts once and returns the bundle's file path. */
export async function bundleEngineWorkflows(): Promise<string> {
  const { code } = await bundle(require.resolve('./workflows'));
  const file = join(mkdtempSync(join(tmpdir(), 'amsflow-bundle-')), 'workflows.js');
  writeFileSync(file, code);
  return file;
}

export interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  /** SIGKILL: no shutdown, nothing flushed. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGINT: graceful shutdown; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface EngineOptions {
  windowMs: number;
  /** A workflow module for the worker to bundle itself (`AMSFLOW_WORKFLOWS`) instead of the suite's bundle. */
  workflows?: string;
  /** More environment for the worker processes. */
  env?: Record<string, string>;
  tuning?: AgentTuning;
  simulator?: Omit<SimulatorOptions, 'agents' | 'port'>;
}

export class Engine {
  readonly agentKey = `t${randomUUID().slice(0, 8)}`;
  readonly taskQueue = `engine-${this.agentKey}`;
  readonly token = `token-${randomUUID()}`;
  readonly creator = 'user:4242';
  sim!: RunningSimulator;
  client!: Client;
  private closeTemporal?: () => Promise<void>;
  private workers = new Set<WorkerProcess>();

  constructor(
    private readonly bundlePath: string,
    readonly options: EngineOptions,
  ) {}

  async start(): Promise<this> {
    this.sim = await startSimulator({
      port: 0,
      ...this.options.simulator,
      limits: { windowMs: this.options.windowMs, ...this.options.simulator?.limits },
      agents: [{ id: this.agentKey, token: this.token, creator: this.creator, creatorName: 'Tester' }],
    });
    const temporal = await connectDevServer();
    this.client = temporal.client;
    this.closeTemporal = temporal.close;
    return this;
  }

  get agentWorkflowId(): string {
    return `agent:${this.agentKey}`;
  }

  handlerWorkflowId(messageId: string): string {
    return `agent:${this.agentKey}:msg:${messageId}`;
  }

  /** Starts a worker process (with `env` over the suite's) and resolves once it reports running. */
  async startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
    const processEnv: NodeJS.ProcessEnv = {
      ...process.env,
      AMS_TOKEN: this.token,
      AMS_BASE_URL: this.sim.url,
      AMSFLOW_AGENT: this.agentKey,
      TEMPORAL_ADDRESS: devServerAddress(),
      AMSFLOW_TASK_QUEUE: this.taskQueue,
      ...(this.options.workflows
        ? { AMSFLOW_WORKFLOWS: this.options.workflows }
        : { AMSFLOW_WORKFLOW_BUNDLE: this.bundlePath }),
      AMSFLOW_LIMITS: JSON.stringify({ windowMs: this.options.windowMs }),
      AMSFLOW_TUNING: JSON.stringify({
        pollTimeoutSeconds: 2,
        activityHeartbeatTimeoutMs: 3000,
        rateLimitBackoffMs: 500,
        reconcileSettleMs: 3000,
        // One poll's share of the scaled window, as 4 s is of the spec's minute.
        receiptSettleMs: Math.round(this.options.windowMs / 15),
        minSettleMs: Math.round(this.options.windowMs / 60),
        ...this.options.tuning,
      }),
      ...this.options.env,
      ...env,
    };
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'worker/main.ts'], {
      cwd: projectRoot,
      env: processEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    collectLines(child, output);
    // 'close', not 'exit': the output's last lines may still be in the pipe when the process exits.
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    const proc: WorkerProcess = {
      child,
      output,
      kill: async () => {
        child.kill('SIGKILL');
        await exited;
        this.workers.delete(proc);
      },
      stop: async () => {
        child.kill('SIGINT');
        const code = await exited;
        this.workers.delete(proc);
        return code;
      },
    };
    this.workers.add(proc);
    await waitFor(
      'the worker to report running',
      () => {
        if (child.exitCode !== null) throw new Error(`worker exited early:\n${output.join('\n')}`);
        return output.some((line) => line.includes('amsflow: running'));
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    return proc;
  }

  /** The human writes `text`; returns the message id. */
  async human(text: string, context?: { id: string }): Promise<string> {
    const { id } = await this.sim.control.human({
      agent: this.agentKey,
      type: 'text',
      text: { body: text },
      context,
    });
    return id;
  }

  async transcript() {
    return this.sim.control.transcript({ agent: this.agentKey });
  }

  /** Texts the agent sent, in order. */
  async sentTexts(): Promise<string[]> {
    const transcript = await this.transcript();
    return transcript.sent.map((s) => (s.body as { text?: { body?: string } }).text?.body ?? `<${s.type}>`);
  }

  async close(): Promise<void> {
    for (const worker of [...this.workers]) await worker.kill();
    await this.client?.workflow
      .getHandle(this.agentWorkflowId)
      .terminate('test over')
      .catch(() => undefined);
    await this.closeTemporal?.();
    await this.sim?.close();
  }
}

/**
 * Registers a suite's hooks: the workflow bundle is built once, and each test's engine (its
 * worker processes, agent workflow and simulator) is closed after the test.
 */
export function engineSuite(): { start(options: EngineOptions): Promise<Engine> } {
  let bundlePath: string | undefined;
  let current: Engine | undefined;
  beforeAll(async () => {
    bundlePath = await bundleEngineWorkflows();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    async start(options) {
      current = await new Engine(bundlePath!, options).start();
      return current;
    },
  };
}

/**
 * The failure type the handler of `messageId` failed with (undefined when it completed), once
 * it has started and ended.
 */
export async function failureTypeOf(engine: Engine, messageId: string): Promise<string | undefined> {
  const handle = engine.client.workflow.getHandle(engine.handlerWorkflowId(messageId));
  await waitFor('the handler workflow to start', () => handle.describe().then(() => true), {
    timeoutMs: 30_000,
  });
  try {
    await handle.result();
    return undefined;
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure)
      return err.cause.type ?? undefined;
    throw err;
  }
}
