/** amsflow worker processes for the cluster suites: `npm run worker` as a child, its output kept. */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { waitFor } from '../support/temporal';
import { collectLines } from '../support/output-lines';

const projectRoot = resolve(__dirname, '..', '..');

export interface WorkerProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts `worker/main.ts` with `env` over this process's environment. */
export function startWorkerProcess(name: string, env: NodeJS.ProcessEnv): WorkerProcess {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'worker/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  collectLines(child, output);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { name, child, output, exited };
}

/** Waits until the worker logs `amsflow: running`; fails with its output if it exits first. */
export async function whenRunning(worker: WorkerProcess, timeoutMs = 90_000): Promise<void> {
  await waitFor(
    `worker ${worker.name} to report running`,
    () => {
      if (worker.child.exitCode !== null) throw new Error(`exited early:\n${worker.output.join('\n')}`);
      return worker.output.some((line) => line.includes('amsflow: running'));
    },
    { timeoutMs, intervalMs: 100 },
  );
}
