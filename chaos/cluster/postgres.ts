/**
 * A throwaway PostgreSQL cluster in a temp folder: `initdb`, then `pg_ctl start` on a given port
 * on 127.0.0.1, with its unix socket in the same folder. PostgreSQL refuses to run as root, so
 * under root every command runs as the `postgres` user (`runuser`), which owns the folder. It can
 * be stopped (crashed or shut down) and started again on the same data: the cluster chaos run's
 * database outages.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const runAsync = promisify(execFile);

/** A running throwaway PostgreSQL. */
export interface RunningPostgres {
  host: string;
  port: number;
  /** The superuser (trust authentication: any password is accepted). */
  user: string;
  dir: string;
  /**
   * Stops the server: `immediate` is a crash (no checkpoint, clients cut off; recovery at the
   * next start), `fast` a clean shutdown that disconnects the clients.
   */
  stop(mode: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same data and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server at once and deletes its folder. */
  destroy(): void;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function ids(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The command line of a PostgreSQL binary, as the `postgres` user when this process is root. */
function commandOf(bin: string, tool: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
}

function failure(tool: string, args: string[], err: unknown): Error {
  const e = err as { stderr?: string; stdout?: string; message: string };
  return new Error(`${tool} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
}

/** Runs a PostgreSQL binary and waits for it. */
function pg(bin: string, tool: string, args: string[]): string {
  const [command, all] = commandOf(bin, tool, args);
  try {
    return execFileSync(command, all, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  } catch (err) {
    throw failure(tool, args, err);
  }
}

/** {@link pg} without blocking the event loop (the chaos run's outages happen while it works). */
async function pgAsync(bin: string, tool: string, args: string[]): Promise<void> {
  const [command, all] = commandOf(bin, tool, args);
  try {
    await runAsync(command, all, { timeout: 60_000 });
  } catch (err) {
    throw failure(tool, args, err);
  }
}

/** Creates and starts a PostgreSQL cluster; `user` becomes its superuser. */
export function startPostgres(options: { bin: string; port: number; user: string }): RunningPostgres {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-pg-'));
  if (isRoot()) {
    const { uid, gid } = ids('postgres');
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  let started = false;
  const serverOptions = [
    `-p ${options.port}`,
    `-k ${dir}`,
    '-h 127.0.0.1',
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');
  const startArgs = [
    'start',
    '-D',
    data,
    '-w',
    '-t',
    '60',
    '-l',
    join(dir, 'server.log'),
    '-o',
    serverOptions,
  ];
  const destroy = () => {
    if (started) {
      try {
        pg(options.bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    pg(options.bin, 'initdb', [
      '-D',
      data,
      '-U',
      options.user,
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    started = true;
    pg(options.bin, 'pg_ctl', startArgs);
  } catch (err) {
    destroy();
    throw err;
  }
  return {
    host: '127.0.0.1',
    port: options.port,
    user: options.user,
    dir,
    stop: (mode) => pgAsync(options.bin, 'pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', '60']),
    start: () => pgAsync(options.bin, 'pg_ctl', startArgs),
    destroy,
  };
}
