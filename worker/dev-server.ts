/**
 * The embedded Temporal server: the Temporal CLI's `server start-dev`, started as a child
 * process on loopback. Used by the worker when `TEMPORAL_ADDRESS` is unset (data under
 * `.amsflow/`) and by the test harness (data in a temp dir).
 *
 * The server runs under a watchdog (`dev-server-watchdog.ts`) in a process group of its own, so
 * a Ctrl-C in the terminal reaches the workers but not the server, which `stop()` ends after
 * them. The watchdog holds a pipe from this process and stops the server as soon as that pipe
 * closes: the server never outlives the process that started it, even one killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { openConnection } from '../tools/temporal-connection';
import { DevServerStartError, PortInUseError } from './dev-server-errors';
import { tailOf } from './output-tail';
import { claimablePort, freePort, portOpen } from './port-probes';

export { DevServerStartError, PortInUseError };
export { claimablePort, freePort, portTaken } from './port-probes';

/** How {@link startDevServer} runs the server. */
export interface DevServerOptions {
  /** Path of the `temporal` CLI binary. */
  cliPath: string;
  /** SQLite file; its folder is created. */
  dbFile: string;
  /** gRPC port; default: a free port. */
  port?: number;
  /** Web UI port; default: a free port. `false` runs headless. */
  uiPort?: number | false;
  namespace?: string;
  /** Extra `--dynamic-config-value` entries, e.g. `{ 'limit.historyCount.suggestContinueAsNew': 500 }`. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /**
   * SQLite pragmas (`--sqlite-pragma`), over {@link DEFAULT_SQLITE_PRAGMAS}. `false`: none at all,
   * the server as `temporal server start-dev --db-filename` runs it (the benchmark's stock server).
   */
  sqlitePragmas?: Record<string, string> | false;
  /** Give up waiting for the server after this long (default 60 s). */
  startTimeoutMs?: number;
  /**
   * Where the server's own output goes. Default: its last 16 KiB are kept in memory, and the
   * error of a start that fails ({@link DevServerStartError}) shows them.
   */
  logFile?: number | 'inherit' | 'ignore';
  /**
   * How long a taken port may take to become free before {@link PortInUseError} (default 5 s):
   * the server of a predecessor that was just killed is being stopped by its watchdog.
   */
  portWaitMs?: number;
}

/**
 * The SQLite settings of the embedded server. The SQLite default (a rollback journal, every
 * commit synced to disk) costs several fsyncs a transaction, and every workflow task is one: a
 * write-ahead log with `synchronous=normal` keeps every commit through a crash of the server or
 * the machine's processes (what the embedded server must survive: `npm start`'s Ctrl-C, kill -9)
 * and may lose the last commits only on an operating-system crash or power loss. A production
 * fleet runs a Temporal cluster on PostgreSQL (docs/OPERATIONS.md), not this.
 */
export const DEFAULT_SQLITE_PRAGMAS: Readonly<Record<string, string>> = {
  journal_mode: 'wal',
  synchronous: 'normal',
};

/** A dev server started by {@link startDevServer}. */
export interface RunningDevServer {
  /** `127.0.0.1:<port>` of its gRPC frontend. */
  address: string;
  uiUrl?: string;
  namespace: string;
  /** The server's process id. */
  pid: number;
  /** The watchdog's process id; also the id of the process group holding both. */
  watchdogPid: number;
  /** Stops the server (SIGTERM, SIGKILL after 10 s); resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/** Watchdogs started by this process, held so their lifeline pipes live as long as the process. */
const lifelines = new Set<ChildProcess>();

/** Features amsflow relies on (updates, update-with-start), on whatever the CLI's defaults are. */
const DEFAULT_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableExecuteMultiOperation': true,
};
/** The watchdog's command line: its compiled `.js` next to this file, or its source via ts-node. */
function watchdogArgs(): string[] {
  if (__filename.endsWith('.js')) return [join(__dirname, 'dev-server-watchdog.js')];
  return [
    '-r',
    require.resolve('ts-node/register/transpile-only'),
    join(__dirname, 'dev-server-watchdog.ts'),
  ];
}

/** The server's pid, as the watchdog reports it on fd 3: `pid <n>` or `error <why>`, then EOF. */
function reportedPid(report: Readable): Promise<number> {
  return new Promise((resolvePid, reject) => {
    let text = '';
    report.setEncoding('utf8');
    report.on('data', (chunk: string) => (text += chunk));
    report.once('end', () => {
      const [kind, ...rest] = text.trim().split(' ');
      const pid = Number(rest[0]);
      if (kind === 'pid' && Number.isInteger(pid) && pid > 0) return resolvePid(pid);
      reject(new Error(`Temporal dev server did not start: ${rest.join(' ') || 'its watchdog died'}`));
    });
  });
}

/** Signals the watchdog's whole process group (the watchdog and the server). */
function signalGroup(watchdog: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-watchdog.pid!, signal);
  } catch {
    watchdog.kill(signal); // No process groups (Windows), or the group is gone already.
  }
}

async function waitReady(
  child: ChildProcess,
  address: string,
  port: number,
  namespace: string,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  if (child.exitCode !== null || child.signalCode !== null) {
    exited = `exited with ${child.signalCode ?? child.exitCode}`;
  }
  for (;;) {
    if (exited) throw new Error(`Temporal dev server ${exited} before it was ready`);
    if (Date.now() > deadline)
      throw new Error(`Temporal dev server not ready on ${address} after ${timeoutMs} ms`);
    if (await portOpen(port)) {
      const connection = await openConnection({ address, connectTimeout: 2000 }).catch(() => undefined);
      if (connection) {
        try {
          await connection.workflowService.describeNamespace({ namespace });
          return;
        } catch {
          // The frontend answers before the namespace is registered; try again.
        } finally {
          await connection.close();
        }
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts the dev server and resolves once its namespace answers. Refuses, with a
 * {@link PortInUseError}, a port something keeps listening on: a server found there is not
 * adopted, since its data, namespace and settings are unknown and its life is not ours to end.
 */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const port = options.port ?? (await freePort());
  const namespace = options.namespace ?? 'default';
  const uiPort = options.uiPort === false ? undefined : (options.uiPort ?? (await freePort()));
  const portWaitMs = options.portWaitMs ?? 5_000;
  await claimablePort(port, 'gRPC', portWaitMs);
  if (uiPort !== undefined) await claimablePort(uiPort, 'web UI', portWaitMs);
  mkdirSync(dirname(options.dbFile), { recursive: true });
  const stdio = options.logFile ?? 'pipe';
  const child = spawnWatchdog(options.cliPath, devServerArgs(options, port, uiPort, namespace), stdio);
  const output = tailOf(stdio === 'pipe' ? [child.stdout, child.stderr] : []);
  const address = `127.0.0.1:${port}`;
  let serverPid: number;
  try {
    serverPid = await reportedPid(child.stdio[3] as Readable);
    await waitReady(child, address, port, namespace, options.startTimeoutMs ?? 60_000);
  } catch (err) {
    // How it ended on its own (the watchdog exits with the server's code), before it is killed.
    const exit = child.exitCode !== null ? `exit code ${child.exitCode}` : (child.signalCode ?? undefined);
    signalGroup(child, 'SIGKILL');
    await output.settled(2_000);
    throw new DevServerStartError((err as Error).message, output.text(), exit);
  }
  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
    namespace,
    pid: serverPid,
    watchdogPid: child.pid ?? -1,
    stop: stopper(child),
  };
}

/** The `temporal` CLI's arguments for `options` on these ports (pure). */
export function devServerArgs(
  options: Pick<DevServerOptions, 'dbFile' | 'dynamicConfig' | 'sqlitePragmas'>,
  port: number,
  uiPort: number | undefined,
  namespace: string,
): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--db-filename',
    options.dbFile,
    '--namespace',
    namespace,
    '--log-level',
    'error',
  ];
  if (uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  const dynamicConfig = { ...DEFAULT_DYNAMIC_CONFIG, ...options.dynamicConfig };
  for (const [key, value] of Object.entries(dynamicConfig)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  const pragmas =
    options.sqlitePragmas === false ? {} : { ...DEFAULT_SQLITE_PRAGMAS, ...options.sqlitePragmas };
  for (const [key, value] of Object.entries(pragmas)) args.push('--sqlite-pragma', `${key}=${value}`);
  return args;
}

/**
 * Starts the watchdog that runs the server. It gets its own process group: a Ctrl-C in the
 * terminal must not stop the server before the workers have drained; stop() ends it after them.
 * Its stdin is the lifeline.
 */
function spawnWatchdog(
  cliPath: string,
  args: string[],
  stdio: number | 'inherit' | 'ignore' | 'pipe',
): ChildProcess {
  const child = spawn(process.execPath, [...watchdogArgs(), cliPath, ...args], {
    stdio: ['pipe', stdio, stdio, 'pipe'],
    detached: true,
  });
  child.once('error', () => undefined); // Reported as the pid report ending empty.
  lifelines.add(child);
  child.once('exit', () => lifelines.delete(child));
  // Neither the child nor its lifeline may keep this process alive; the lifeline is never written.
  child.unref();
  child.stdin!.on('error', () => undefined);
  (child.stdin as unknown as Socket).unref();
  return child;
}

/** `stop()` of a running server: SIGTERM to the watchdog, SIGKILL if it hangs; idempotent. */
function stopper(child: ChildProcess): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      // The watchdog gives the server 10 s after SIGTERM; this is for a watchdog that hangs.
      const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(killer);
        done();
      });
      child.kill('SIGTERM');
    });
    return stopped;
  };
}
