/**
 * A real amsflow worker process for the bench (`worker/main.ts`, as `npm start` runs it), so
 * that its memory and CPU are its own: serving a list of agents of one simulator, on a Temporal
 * server the bench started.
 */
import type { AgentTuning } from '../protocol';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { waitUntil } from './wait-until';

const projectRoot = resolve(__dirname, '..');

export interface BenchWorker {
  pid: number;
  /** When the process printed `amsflow: running`, from its spawn (ms). */
  startupMs: number;
  /** When it was spawned (epoch ms). */
  spawnedAt: number;
  output: string[];
  /** Resolves when the process has exited (for any reason). */
  exited: Promise<void>;
  /** SIGKILL; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGINT (graceful); resolves once it is gone. */
  stop(): Promise<void>;
}

export interface BenchWorkerOptions {
  temporalAddress: string;
  simulatorUrl: string;
  agents: { agentKey: string; token: string }[];
  taskQueue: string;
  limits: Record<string, number>;
  tuning?: AgentTuning;
  /** A prebuilt workflow bundle (saves the bundling at every start). */
  workflowBundle?: string;
  /** More variables for the process; `undefined` unsets one the bench's own environment has. */
  env?: Record<string, string | undefined>;
  /** Node's own flags for the process, e.g. `['--max-old-space-size=1024']`. */
  nodeArgs?: string[];
  /**
   * The compiled worker to run (`worker/main.js` of an `npm run build` output, as the image
   * runs it: {@link buildCompiledWorker}); default `worker/main.ts` under ts-node, as `npm start`.
   */
  compiledMain?: string;
  /** How long to wait for `amsflow: running` (default 300 s). */
  readyTimeoutMs?: number;
}

/** `worker/main.ts` under ts-node (or the compiled one), configured by `options`, its agents file in `dir`. */
function spawnWorker(options: BenchWorkerOptions, dir: string): ChildProcess {
  const agentsFile = join(dir, 'agents.json');
  writeFileSync(agentsFile, JSON.stringify(options.agents));
  const main = options.compiledMain
    ? [options.compiledMain]
    : ['-r', 'ts-node/register/transpile-only', 'worker/main.ts'];
  return spawn(process.execPath, [...(options.nodeArgs ?? []), ...main], {
    cwd: projectRoot,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.temporalAddress,
      AMS_BASE_URL: options.simulatorUrl,
      AMSFLOW_AGENTS_FILE: agentsFile,
      AMSFLOW_TASK_QUEUE: options.taskQueue,
      AMSFLOW_LIMITS: JSON.stringify(options.limits),
      AMSFLOW_FLEET_AGENTS: String(options.agents.length),
      AMSFLOW_METRICS_PORT: '0',
      ...(options.tuning ? { AMSFLOW_TUNING: JSON.stringify(options.tuning) } : {}),
      ...(options.workflowBundle ? { AMSFLOW_WORKFLOW_BUNDLE: options.workflowBundle } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function startBenchWorker(options: BenchWorkerOptions): Promise<BenchWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-bench-worker-'));
  const spawnedAt = Date.now();
  const child = spawnWorker(options, dir);
  const output: string[] = [];
  // Line by line per stream: a pipe's chunk need not end at a line's end.
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      if (line) output.push(line);
      if (output.length > 2000) output.splice(0, output.length - 2000);
    });
  }
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      rmSync(dir, { recursive: true, force: true });
      done();
    }),
  );
  await waitUntil(
    'the bench worker to report running',
    async () => {
      if (child.exitCode !== null) throw new Error(`bench worker exited:\n${output.slice(-30).join('\n')}`);
      return output.some((line) => line.includes('amsflow: running'));
    },
    options.readyTimeoutMs ?? 300_000,
  ).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    pid: child.pid!,
    startupMs: Date.now() - spawnedAt,
    spawnedAt,
    output,
    exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * Bundles the reference bot once (as the worker would), so that every bench worker starts from the
 * file; with `tracing`, with tracing's workflow interceptors, as a worker that traces bundles it.
 */
export async function prebuildReferenceBundle({ tracing = false }: { tracing?: boolean } = {}): Promise<{
  file: string;
  close(): void;
}> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { workflowBundlerOptions, workflowInterceptorModules } = await import('../worker/bundling');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../examples/reference/bot'),
    ...workflowBundlerOptions(),
    workflowInterceptorModules: workflowInterceptorModules(tracing),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-bench-bundle-'));
  const file = join(dir, 'workflows.js');
  writeFileSync(file, code);
  return { file, close: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Compiles the worker as the image does (`tsconfig.build.json`, into a directory of its own
 * under `dist/`, removed by `close`), so
 * that a bench worker can start as a deployed one does: `node dist/worker/main.js`.
 */
export async function buildCompiledWorker(): Promise<{ main: string; close(): void }> {
  // Under the project, as dist/ is: the compiled modules resolve its node_modules.
  mkdirSync(join(projectRoot, 'dist'), { recursive: true });
  const outDir = mkdtempSync(join(projectRoot, 'dist', 'bench-'));
  const tsc = require.resolve('typescript/bin/tsc');
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? done() : fail(new Error(`the worker's compilation failed (${code}):\n${output}`)),
    );
  });
  return {
    main: join(outDir, 'worker', 'main.js'),
    close: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
