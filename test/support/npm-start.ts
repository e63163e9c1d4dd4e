/**
 * `npm start` as a person runs it, for the tests of test/start: its command, its environment on
 * ports and a data dir of the test's own, and a launched run's output and exit.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { freePort } from '../../worker/dev-server';

export const ROOT = path.resolve(__dirname, '..', '..');

/** What `npm start` runs (the `start` script, `exec ts-node …`): node and ts-node's bin with its arguments. */
export function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [exec, bin, ...args] = pkg.scripts.start.split(' ');
  expect([exec, bin]).toEqual(['exec', 'ts-node']);
  return [require.resolve('ts-node/dist/bin.js'), ...args];
}

/** Polls `check` until it gives a value; throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The ports of a demo run (`npm start` with the embedded server and simulator). */
export interface DemoPorts {
  devServer: number;
  devServerUi: number;
  simulator: number;
  metrics: number;
}

/**
 * The environment of a demo run on `dataDir` and free ports: this process's, without the test's
 * own dev server or any real-service settings, which are not npm start's business.
 */
export async function demoEnv(dataDir: string): Promise<{ env: NodeJS.ProcessEnv; ports: DemoPorts }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AMS_|AMSFLOW_|TEMPORAL_ADDRESS|TEMPORAL_NAMESPACE)/.test(key)) env[key] = value;
  }
  const ports = {
    devServer: await freePort(),
    devServerUi: await freePort(),
    simulator: await freePort(),
    metrics: await freePort(),
  };
  Object.assign(env, {
    AMSFLOW_DATA_DIR: dataDir,
    AMSFLOW_DEV_SERVER_PORT: String(ports.devServer),
    AMSFLOW_DEV_SERVER_UI_PORT: String(ports.devServerUi),
    AMSFLOW_SIMULATOR_PORT: String(ports.simulator),
    AMSFLOW_METRICS_PORT: String(ports.metrics),
  });
  return { env, ports };
}

/** A launched run: its process, everything it printed, and its exit code. */
export interface NpmStart {
  child: ChildProcessWithoutNullStreams;
  output: string[];
  exited: Promise<number | null>;
}

export const textOf = (start: NpmStart) => start.output.join('');

/** Runs `command` in the repository with `env` (in a process group of its own if `detached`). */
export function launch(command: string, args: string[], env: NodeJS.ProcessEnv, detached = false): NpmStart {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: 'pipe', detached });
  const output: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output, exited };
}

/** Resolves once the run prints its banner; throws if it exits first or takes longer than `timeoutMs`. */
export async function untilRunning(start: NpmStart, timeoutMs: number): Promise<void> {
  await until('npm start to say it is running', timeoutMs, () => {
    if (start.child.exitCode !== null) {
      throw new Error(`npm start exited (${start.child.exitCode}):\n${textOf(start)}`);
    }
    return textOf(start).includes('amsflow: running') ? true : undefined;
  });
}
