/**
 * The embedded server's command line (`temporal server start-dev`): where it listens (loopback
 * only; the web UI on its own private address, see worker/checked-proxy.ts), its SQLite settings,
 * and the dynamic configuration amsflow relies on, the HTTP API closed among it. Pure.
 */
import { randomBytes } from 'node:crypto';

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

/** A value of a `--dynamic-config-value` entry (sent as JSON). */
export type DynamicConfigValue = string | number | boolean | readonly string[];

/**
 * Features amsflow relies on (updates, update-with-start), on whatever the CLI's defaults are; and
 * a worker's graceful shutdown without lost tasks: the server ends a stopping worker's polls for
 * tasks itself, so that none is handed to a poll the worker is cutting (that task would wait for its
 * timeout: the agent of a drained worker polling again after ~30 s, not at once). The cluster's
 * deploy/temporal/dynamicconfig.yaml sets the same.
 */
const DEFAULT_DYNAMIC_CONFIG: Record<string, DynamicConfigValue> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableExecuteMultiOperation': true,
  'frontend.enableCancelWorkerPollsOnShutdown': true,
};

/**
 * The server's HTTP API closed. It runs whatever a request asks (a cross-site `text/plain` POST
 * from any web page halted an agent) and checks no Origin; neither amsflow, nor the UI (it talks
 * gRPC), nor the CLI use it, and `start-dev` cannot switch it off. Its own Host check is given one
 * random `.invalid` name, which no DNS resolves and so no browser sends: every request answers 403
 * ("Host not allowed"). Random each start, so that not even a hosts file made for it matches.
 */
export function closedHttpApi(): Record<string, DynamicConfigValue> {
  return { 'frontend.httpAllowedHosts': [`closed-${randomBytes(16).toString('hex')}.invalid`] };
}

/** Where something listens. */
export interface Listener {
  host: string;
  port: number;
}

/** What the server listens on, for {@link devServerArgs}. */
export interface DevServerListeners {
  /** The gRPC frontend's port, on 127.0.0.1. */
  port: number;
  /** The HTTP API's port, on 127.0.0.1 (closed: {@link closedHttpApi}). */
  httpPort: number;
  /** The web UI's own address (behind the proxy); none: headless. */
  ui?: Listener;
  /** The port of the server's own Prometheus metrics, on 127.0.0.1; none: not served. */
  metricsPort?: number;
  namespace: string;
}

/** What of the server's options the command line carries (see `DevServerOptions`). */
export interface DevServerArgOptions {
  dbFile: string;
  dynamicConfig?: Record<string, DynamicConfigValue>;
  sqlitePragmas?: Record<string, string> | false;
}

/** The `temporal` CLI's arguments for `options` on these listeners. */
export function devServerArgs(options: DevServerArgOptions, listen: DevServerListeners): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(listen.port),
    '--http-port',
    String(listen.httpPort),
    '--db-filename',
    options.dbFile,
    '--namespace',
    listen.namespace,
    '--log-level',
    'error',
  ];
  if (listen.metricsPort !== undefined) args.push('--metrics-port', String(listen.metricsPort));
  if (listen.ui === undefined) args.push('--headless');
  else args.push('--ui-ip', listen.ui.host, '--ui-port', String(listen.ui.port));
  const dynamicConfig = { ...DEFAULT_DYNAMIC_CONFIG, ...options.dynamicConfig };
  for (const [key, value] of Object.entries(dynamicConfig)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  const pragmas =
    options.sqlitePragmas === false ? {} : { ...DEFAULT_SQLITE_PRAGMAS, ...options.sqlitePragmas };
  for (const [key, value] of Object.entries(pragmas)) args.push('--sqlite-pragma', `${key}=${value}`);
  return args;
}
