/**
 * docker-compose.yml's topology without Docker: a throwaway PostgreSQL, Temporal's schema set up
 * by the server's own SQL tool (deploy/temporal/setup-schema.sh), the Temporal server built from
 * its Go module with the compose file's config template, and the namespace created
 * (deploy/temporal/create-namespace.sh). The tools come from `npm run cluster:setup`. Started by
 * test/cluster and by the cluster chaos run (which routes the server's database connections
 * through toxiproxy).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { findClusterTools, type ClusterTools } from '../../scripts/cluster-tools';
import { resolveTemporalBinaries } from '../../tools/temporal-binaries';
import { startPostgres, type RunningPostgres } from './postgres';
import {
  serverEnv,
  serverPorts,
  TemporalServer,
  lowFreePorts,
  type SecuredFrontend,
} from './temporal-server';

const run = promisify(execFile);
const deployDir = resolve(__dirname, '..', '..', 'deploy', 'temporal');

/** A running native cluster. */
export interface NativeCluster {
  /** The frontend, for `TEMPORAL_ADDRESS`. */
  address: string;
  namespace: string;
  tools: ClusterTools;
  postgres: RunningPostgres;
  /** The server process: `stop()` and `start()` again run it on the same database. */
  server: TemporalServer;
  /** Milliseconds each start-up step took. */
  timings: Record<string, number>;
  /** Stops everything and deletes the data. */
  close(): Promise<void>;
}

async function temporalCli(): Promise<string> {
  const binaries = await resolveTemporalBinaries({ install: false, probeSdkDownload: async () => 'off' });
  if (binaries.cli.kind !== 'path')
    throw new Error('The Temporal CLI is needed on disk: run `npm run setup`');
  return binaries.cli.path;
}

async function timed<T>(timings: Record<string, number>, name: string, step: () => Promise<T> | T) {
  const started = Date.now();
  const result = await step();
  timings[name] = Date.now() - started;
  return result;
}

/** Starts the whole cluster; throws (never skips) when a tool is missing. */
export async function startNativeCluster(
  options: {
    namespace?: string;
    /**
     * The address the Temporal server reaches PostgreSQL at (default: PostgreSQL's own), e.g. a
     * toxiproxy proxy in front of it; the schema is set up directly.
     */
    databaseRoute?: (postgres: RunningPostgres) => Promise<{ host: string; port: number }>;
    /**
     * TLS and JWT authorization on the frontend; `adminEnv` is the Temporal CLI's connection for
     * the health check and the namespace's creation (`TEMPORAL_TLS_*`, and `TEMPORAL_API_KEY`
     * holding a token with `temporal-system:admin`).
     */
    secured?: SecuredFrontend & { adminEnv: Record<string, string> };
    /** The server's dynamic config file (default: the repository's, as docker-compose.yml mounts). */
    dynamicConfigFile?: string;
  } = {},
): Promise<NativeCluster> {
  const namespace = options.namespace ?? 'default';
  const tools = findClusterTools();
  const cliPath = await temporalCli();
  const timings: Record<string, number> = {};
  const [pgPort] = await lowFreePorts(1);
  const postgres = await timed(timings, 'postgres', () =>
    startPostgres({ bin: tools.postgresBin, port: pgPort, user: 'temporal' }),
  );
  const cwd = mkdtempSync(join(tmpdir(), 'amsflow-temporal-'));
  let server: TemporalServer | undefined;
  const close = async () => {
    await server?.stop();
    postgres.destroy();
    rmSync(cwd, { recursive: true, force: true });
  };
  try {
    await timed(timings, 'schema', () =>
      run('sh', [join(deployDir, 'setup-schema.sh')], {
        env: {
          PATH: process.env.PATH,
          TEMPORAL_SQL_TOOL: tools.sqlTool,
          TEMPORAL_SCHEMA_DIR: tools.schemaDir,
          SQL_HOST: postgres.host,
          SQL_PORT: String(postgres.port),
          SQL_USER: postgres.user,
        },
      }),
    );
    const route = options.databaseRoute ? await options.databaseRoute(postgres) : postgres;
    const secured = options.secured;
    const env = serverEnv({
      ports: await serverPorts(),
      postgres: { ...route, user: postgres.user },
      secured,
      dynamicConfigFile: options.dynamicConfigFile,
    });
    server = new TemporalServer({ serverBin: tools.server, cliPath, env, cwd, cliEnv: secured?.adminEnv });
    await timed(timings, 'server', () => server!.start());
    const address = server.address;
    await timed(timings, 'namespace', () =>
      run('sh', [join(deployDir, 'create-namespace.sh')], {
        env: {
          PATH: process.env.PATH,
          TEMPORAL_CLI: cliPath,
          TEMPORAL_ADDRESS: address,
          NAMESPACE: namespace,
          ...secured?.adminEnv,
        },
      }),
    );
    return { address, namespace, tools, postgres, server, timings, close };
  } catch (err) {
    await close();
    throw err;
  }
}
