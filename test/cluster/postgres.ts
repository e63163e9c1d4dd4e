/**
 * A throwaway PostgreSQL cluster in a temp folder: `initdb`, then `pg_ctl start` on a given port
 * on 127.0.0.1, with its unix socket in the same folder. PostgreSQL refuses to run as root, so
 * under root every command runs as the `postgres` user (`runuser`), which owns the folder.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running throwaway PostgreSQL. */
export interface RunningPostgres {
  host: string;
  port: number;
  /** The superuser (trust authentication: any password is accepted). */
  user: string;
  dir: string;
  /** Stops the server at once and deletes its folder. */
  destroy(): void;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function ids(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function pg(bin: string, tool: string, args: string[]): string {
  const [command, all] = isRoot()
    ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
    : [join(bin, tool), args];
  try {
    return execFileSync(command, all, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
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
    const serverOptions = [
      `-p ${options.port}`,
      `-k ${dir}`,
      '-h 127.0.0.1',
      '-c fsync=off',
      '-c max_connections=200',
    ].join(' ');
    started = true;
    pg(options.bin, 'pg_ctl', [
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
    ]);
  } catch (err) {
    destroy();
    throw err;
  }
  return { host: '127.0.0.1', port: options.port, user: options.user, dir, destroy };
}
