/**
 * SIGTERM or SIGINT to one pid, as a process manager or `kill` sends it, stops everything the run
 * started, as Ctrl-C in the terminal does: the pid of `npm start`, of `npm run worker`, and of the
 * worker itself (`node …/worker/main`, the shape of the container image's entry point). Each run
 * is a demo on ports and a data dir of its own; after the signal, the process has exited 0 after
 * a clean drain (the chat written, marked clean), and every port it listened on is free, all
 * within 10 s.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoEnv, launch, ROOT, textOf, until, untilRunning, type NpmStart } from '../support/npm-start';

/** Deadline of a start (bundling the workflows, starting the dev server) on a loaded machine. */
const START_MS = 120_000;
/** What the issue asks of a stop: everything gone within 10 s of the signal. */
const STOP_MS = 10_000;

function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((ok) => {
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

/** True while any process of the group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const dirs: string[] = [];
let current: NpmStart | undefined;
afterEach(async () => {
  // A run the test could not stop: its whole group (the dev server's watchdog follows its parent).
  if (current && groupAlive(current.child.pid!)) {
    process.kill(-current.child.pid!, 'SIGKILL');
    await current.exited;
  }
  current = undefined;
});
/** Signal-to-everything-stopped times, to `test-artifacts/signals-timings.json`. */
const timings: Record<string, number> = {};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  writeFileSync(
    join(ROOT, 'test-artifacts', 'signals-timings.json'),
    `${JSON.stringify(timings, null, 2)}\n`,
  );
});

describe('a signal to one pid stops everything that run started, within 10 s', () => {
  it.each([
    ['npm start', 'SIGTERM', 'npm', ['start'], 'pid'],
    ['npm start', 'SIGINT', 'npm', ['start'], 'pid'],
    ['npm run worker', 'SIGTERM', 'npm', ['run', 'worker'], 'pid'],
    [
      'the worker entry (the container’s shape)',
      'SIGTERM',
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'worker/main.ts'],
      'pid',
    ],
    // Ctrl-C in a terminal: the whole foreground group, so the worker gets it twice (from the
    // terminal and forwarded by npm); the second must not cut the drain short.
    ['npm start, Ctrl-C (its whole process group)', 'SIGINT', 'npm', ['start'], 'group'],
  ] as const)(
    '%s, %s',
    async (name, signal, command, args, target) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'amsflow-signals-'));
      dirs.push(dataDir);
      const { env, ports } = await demoEnv(dataDir);
      // In a group of its own, so that the clean-up above can end it whole; the test signals one pid.
      const run = launch(command, [...args], env, true);
      current = run;
      await untilRunning(run, START_MS);
      const all = [ports.devServer, ports.devServerUi, ports.simulator, ports.metrics];
      for (const port of all) expect(await isFree(port)).toBe(false);

      const signalled = Date.now();
      process.kill(target === 'group' ? -run.child.pid! : run.child.pid!, signal);
      const code = await until(`the process to exit after ${signal}`, STOP_MS, () =>
        run.child.exitCode !== null || run.child.signalCode !== null ? run.child.exitCode : undefined,
      );
      for (const port of all) {
        await until(`port ${port} to be free`, Math.max(0, STOP_MS - (Date.now() - signalled)), async () =>
          (await isFree(port)) ? true : undefined,
        );
      }
      const stoppedMs = Date.now() - signalled;
      // On a failure, what the run printed last says why (a drain error, a forced stop).
      const tail = code === 0 ? '' : textOf(run).split('\n').slice(-25).join('\n');
      expect({ code, stoppedMs: stoppedMs <= STOP_MS, tail }).toEqual({ code: 0, stoppedMs: true, tail: '' });
      // Nothing of the run is left: npm, its shell, the worker (the dev server's group is checked by its ports).
      expect(groupAlive(run.child.pid!)).toBe(false);
      // The same clean drain as Ctrl-C.
      expect(textOf(run)).toContain('amsflow: stopping (long polls cancelled');
      expect(textOf(run)).toContain('amsflow: stopped');
      const chat = JSON.parse(readFileSync(join(dataDir, 'demo', 'simulator.json'), 'utf8')) as {
        clean: boolean;
      };
      expect(chat.clean).toBe(true);
      timings[`${name}, ${signal}`] = stoppedMs;
    },
    START_MS + 30_000,
  );
});
