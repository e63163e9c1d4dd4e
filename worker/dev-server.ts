/**
 * The embedded Temporal server: the Temporal CLI's `server start-dev`, started as a child
 * process on loopback. Used by the worker when `TEMPORAL_ADDRESS` is unset (data under
 * `.amsflow/`) and by the test harness (data in a temp dir).
 *
 * The server runs under a watchdog (`dev-server-watchdog.ts`) in a process group of its own, so
 * a Ctrl-C in the terminal reaches the workers but not the server, which `stop()` ends after
 * them. The watchdog holds a pipe from this process and stops the server as soon as that pipe
 * closes: the server never outlives the process that started it, even one killed with SIGKILL.
 *
 * What it serves on loopback answers only this machine's own callers (docs/SECURITY.md): the web
 * UI is behind amsflow's checked proxy (checked-proxy.ts) and itself listens on a private
 * loopback address; the HTTP API is closed ({@link closedHttpApi}); the gRPC frontend, which the
 * workers and the `temporal` CLI use, is what it always was. Its database and the files beside it
 * are readable by their user only (the watchdog's umask).
 *
 * Why not `@temporalio/testing`'s ephemeral server (`TestWorkflowEnvironment.createLocal` with an
 * existing CLI path), which starts the same `server start-dev`: tried on 1.24.0, its server shares
 * the caller's process group (a Ctrl-C stops it at once, before the workers drain), writes to the
 * caller's stdout and stderr (nothing to read a port clash or a bad flag from), takes no umask,
 * and outlives a caller killed with SIGKILL (reparented to init, still serving). Each of the four
 * is a promise of this module, and what it would save is only the command line
 * (`dev-server-args.ts`), which the watchdog needs anyway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { openConnection } from '../tools/temporal-connection';
import { startCheckedProxy, type CheckedProxy } from './checked-proxy';
import { closedHttpApi, devServerArgs, type DynamicConfigValue, type Listener } from './dev-server-args';
import { DevServerStartError, PortInUseError } from './dev-server-errors';
import { tailOf } from './output-tail';
import { claimablePort, freePort, freePortBesides, portOpen } from './port-probes';
import { LOOPBACK, privateLoopbackHost } from './private-loopback';

export { DevServerStartError, PortInUseError };
export {
  closedHttpApi,
  DEFAULT_SQLITE_PRAGMAS,
  devServerArgs,
  type DevServerListeners,
  type DynamicConfigValue,
  type Listener,
} from './dev-server-args';
export { claimablePort, freePort, portTaken } from './port-probes';

/** How {@link startDevServer} runs the server. */
export interface DevServerOptions {
  /** Path of the `temporal` CLI binary. */
  cliPath: string;
  /** SQLite file; its folder is created. */
  dbFile: string;
  /** gRPC port; default: a free port. */
  port?: number;
  /**
   * Web UI port on 127.0.0.1: amsflow's checked proxy, in front of the UI on a private address;
   * default: a free port. `false` runs headless.
   */
  uiPort?: number | false;
  namespace?: string;
  /**
   * Extra `--dynamic-config-value` entries, e.g. `{ 'limit.historyCount.suggestContinueAsNew': 500 }`.
   * `frontend.httpAllowedHosts` opens the HTTP API again ({@link closedHttpApi}).
   */
  dynamicConfig?: Record<string, DynamicConfigValue>;
  /**
   * SQLite pragmas (`--sqlite-pragma`), over {@link DEFAULT_SQLITE_PRAGMAS}. `false`: none at all,
   * the server as `temporal server start-dev --db-filename` runs it (the benchmark's stock server).
   */
  sqlitePragmas?: Record<string, string> | false;
  /**
   * The server's own Prometheus metrics (its `persistence_requests`, `action` counters...) on
   * 127.0.0.1 at this port, `0` for a free one; default: not served.
   */
  metricsPort?: number;
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

/** A dev server started by {@link startDevServer}. */
export interface RunningDevServer {
  /** `127.0.0.1:<port>` of its gRPC frontend. */
  address: string;
  /** `http://127.0.0.1:<uiPort>`: the web UI, behind amsflow's checked proxy. */
  uiUrl?: string;
  /** The port of its HTTP API on 127.0.0.1, closed unless `dynamicConfig` opens it ({@link closedHttpApi}). */
  httpPort: number;
  namespace: string;
  /** `http://127.0.0.1:<metricsPort>/metrics`, when `metricsPort` was given. */
  metricsUrl?: string;
  /** The server's process id. */
  pid: number;
  /** The watchdog's process id; also the id of the process group holding both. */
  watchdogPid: number;
  /** Stops the server (SIGTERM, SIGKILL after 10 s); resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/** Watchdogs started by this process, held so their lifeline pipes live as long as the process. */
const lifelines = new Set<ChildProcess>();

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

/** Resolves once the namespace answers on `address` and the UI, if any, takes connections. */
async function waitReady(
  child: ChildProcess,
  address: string,
  port: number,
  namespace: string,
  timeoutMs: number,
  ui: Listener | undefined,
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
          // The proxy answers at once; the UI behind it comes up a little after the frontend.
          if (!ui || (await portOpen(ui.port, ui.host))) return;
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
 * The web UI's proxy on 127.0.0.1:`uiPort`, in front of the UI on a private address. Listening
 * before the server starts, it holds the port from the start.
 */
async function startUiProxy(uiPort: number, ui: Listener): Promise<CheckedProxy> {
  return startCheckedProxy({ host: LOOPBACK, port: uiPort, upstream: ui, what: 'the Temporal UI' }).catch(
    (err: NodeJS.ErrnoException) => {
      throw err.code === 'EADDRINUSE' ? new PortInUseError(uiPort, 'web UI') : err;
    },
  );
}

/**
 * Starts the dev server and resolves once its namespace answers. Refuses, with a
 * {@link PortInUseError}, a port something keeps listening on: a server found there is not
 * adopted, since its data, namespace and settings are unknown and its life is not ours to end.
 */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const port = options.port ?? (await freePort());
  const namespace = options.namespace ?? 'default';
  const uiPort =
    options.uiPort === false ? undefined : (options.uiPort ?? (await freePortBesides(LOOPBACK, [port])));
  const httpPort = await freePortBesides(LOOPBACK, [port, uiPort]);
  const metricsPort =
    options.metricsPort === 0
      ? await freePortBesides(LOOPBACK, [port, uiPort, httpPort])
      : options.metricsPort;
  const portWaitMs = options.portWaitMs ?? 5_000;
  await claimablePort(port, 'gRPC', portWaitMs);
  if (uiPort !== undefined) await claimablePort(uiPort, 'web UI', portWaitMs);
  let ui: Listener | undefined;
  if (uiPort !== undefined) {
    const host = await privateLoopbackHost();
    ui = { host, port: await freePortBesides(host, [port, uiPort, httpPort]) };
  }
  // The data's folder readable by its user only, like the files the server makes in it.
  mkdirSync(dirname(options.dbFile), { recursive: true, mode: 0o700 });
  const proxy = ui && uiPort !== undefined ? await startUiProxy(uiPort, ui) : undefined;
  const stdio = options.logFile ?? 'pipe';
  const serverOptions = { ...options, dynamicConfig: { ...closedHttpApi(), ...options.dynamicConfig } };
  const args = devServerArgs(serverOptions, { port, httpPort, ui, metricsPort, namespace });
  const child = spawnWatchdog(options.cliPath, args, stdio);
  const output = tailOf(stdio === 'pipe' ? [child.stdout, child.stderr] : []);
  const address = `${LOOPBACK}:${port}`;
  let serverPid: number;
  try {
    serverPid = await reportedPid(child.stdio[3] as Readable);
    await waitReady(child, address, port, namespace, options.startTimeoutMs ?? 60_000, ui);
  } catch (err) {
    // How it ended on its own (the watchdog exits with the server's code), before it is killed.
    const exit = child.exitCode !== null ? `exit code ${child.exitCode}` : (child.signalCode ?? undefined);
    signalGroup(child, 'SIGKILL');
    await proxy?.close();
    await output.settled(2_000);
    throw new DevServerStartError((err as Error).message, output.text(), exit);
  }
  const stopServer = stopper(child);
  return {
    address,
    uiUrl: proxy?.url,
    httpPort,
    namespace,
    ...(metricsPort !== undefined ? { metricsUrl: `http://${LOOPBACK}:${metricsPort}/metrics` } : {}),
    pid: serverPid,
    watchdogPid: child.pid ?? -1,
    stop: async () => {
      await Promise.all([proxy?.close(), stopServer()]);
    },
  };
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
