/**
 * The embedded Temporal server: the Temporal CLI's `server start-dev`, started as a child
 * process on loopback. Used by the worker when `TEMPORAL_ADDRESS` is unset (data under
 * `.amsflow/`) and by the test harness (data in a temp dir).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';

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
  /** Give up waiting for the server after this long (default 60 s). */
  startTimeoutMs?: number;
  /** Where the server's own output goes (default: discarded). */
  logFile?: number | 'inherit' | 'ignore';
}

export interface RunningDevServer {
  address: string;
  uiUrl?: string;
  namespace: string;
  pid: number;
  stop(): Promise<void>;
}

/** Features amsflow relies on (updates, update-with-start), on whatever the CLI's defaults are. */
const DEFAULT_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableExecuteMultiOperation': true,
};

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() =>
        typeof addr === 'object' && addr ? resolvePort(addr.port) : reject(new Error('no port')),
      );
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
    socket.connect(port, '127.0.0.1');
  });
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
  for (;;) {
    if (exited) throw new Error(`Temporal dev server ${exited} before it was ready`);
    if (Date.now() > deadline)
      throw new Error(`Temporal dev server not ready on ${address} after ${timeoutMs} ms`);
    if (await portOpen(port)) {
      const connection = await Connection.connect({ address, connectTimeout: 2000 }).catch(() => undefined);
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

/** Starts the dev server and resolves once its namespace answers. */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const port = options.port ?? (await freePort());
  const namespace = options.namespace ?? 'default';
  const uiPort = options.uiPort === false ? undefined : (options.uiPort ?? (await freePort()));
  mkdirSync(dirname(options.dbFile), { recursive: true });
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
  const stdio = options.logFile ?? 'ignore';
  // Its own process group: a Ctrl-C in the terminal must not stop the server before the workers
  // have drained; stop() ends it after them.
  const child = spawn(options.cliPath, args, { stdio: ['ignore', stdio, stdio], detached: true });
  child.unref();
  const address = `127.0.0.1:${port}`;
  try {
    await waitReady(child, address, port, namespace, options.startTimeoutMs ?? 60_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
    namespace,
    pid: child.pid ?? -1,
    stop() {
      stopped ??= new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(killer);
          done();
        });
        child.kill('SIGTERM');
      });
      return stopped;
    },
  };
}
