/**
 * Where the native cluster's tools live: PostgreSQL's server binaries (Debian's `postgresql`
 * package) and the Temporal server and SQL tool built from the Go module at the version
 * `deploy/versions.json` pins, with that version's schema files; beside them toxiproxy's server,
 * built from its Go module, for the cluster chaos run's network faults. `npm run cluster:setup`
 * (scripts/cluster-setup.ts) provides them; the cluster test and the chaos run only find them.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import versions from '../deploy/versions.json';

/** The pinned versions shared by docker-compose.yml, the setup and the tests. */
export const CLUSTER_VERSIONS = versions;

/** The Go packages built, each installed under its last path element (`server`, `sql`). */
export const GO_PACKAGES = {
  server: `${versions.temporalGoModule}/cmd/server@v${versions.temporalServer}`,
  sqlTool: `${versions.temporalGoModule}/cmd/tools/sql@v${versions.temporalServer}`,
  /** toxiproxy's server (`cmd/server` in v2.5; installed as `server`, renamed `toxiproxy-server`). */
  toxiproxy: `${versions.toxiproxyGoModule}/cmd/server@v${versions.toxiproxy}`,
} as const;

/** The repository's server config template, shared with docker-compose.yml. */
export const SERVER_CONFIG_TEMPLATE = resolve(__dirname, '..', 'deploy', 'temporal', 'config.yaml.tmpl');

/** The repository's server dynamic config, shared with docker-compose.yml. */
export const SERVER_DYNAMIC_CONFIG = resolve(__dirname, '..', 'deploy', 'temporal', 'dynamicconfig.yaml');

/** Paths of the installed tools. */
export interface ClusterTools {
  /** Folder holding `initdb`, `pg_ctl` and `postgres`. */
  postgresBin: string;
  /** The Temporal server binary (`server --config-file ... start`). */
  server: string;
  /** `temporal-sql-tool`, built from `cmd/tools/sql`. */
  sqlTool: string;
  /** `schema/postgresql/v12` of the pinned module: `temporal/versioned`, `visibility/versioned`. */
  schemaDir: string;
}

/** A tool the cluster needs is not installed; says how to install it. */
export class ClusterToolsMissingError extends Error {
  readonly code = 'AMSFLOW_CLUSTER_TOOLS_MISSING';
  constructor(readonly missing: string[]) {
    super(
      `The native Temporal cluster's tools are missing:\n${missing.map((m) => `  - ${m}`).join('\n')}\n` +
        'Run `npm run cluster:setup` (installs PostgreSQL, builds the Temporal server from its Go module).',
    );
    this.name = 'ClusterToolsMissingError';
  }
}

/**
 * The folder the Go builds and schema copy go to: outside the clone, so that a fresh clone on the
 * same machine reuses them. `AMSFLOW_CLUSTER_TOOLS_DIR` overrides it.
 */
export function clusterToolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.AMSFLOW_CLUSTER_TOOLS_DIR ??
    join(homedir(), '.cache', 'amsflow', `temporal-server-v${versions.temporalServer}`)
  );
}

/** True when `path` is an executable file. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL's server binaries: the newest `/usr/lib/postgresql/<major>/bin`, else `initdb` on PATH. */
export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const major of majors) {
    const bin = join(root, major, 'bin');
    if (isExecutable(join(bin, 'initdb')) && isExecutable(join(bin, 'pg_ctl'))) return bin;
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    const bin = resolve(initdb, '..');
    if (initdb && isExecutable(join(bin, 'pg_ctl'))) return bin;
  } catch {
    // not on PATH either
  }
  return undefined;
}

/** The major version of the PostgreSQL server in `bin` (from `initdb --version`). */
export function postgresMajor(bin: string): number {
  const text = execFileSync(join(bin, 'initdb'), ['--version'], { encoding: 'utf8' });
  const match = /(\d+)(?:\.\d+)?/.exec(text);
  if (!match) throw new Error(`Cannot read PostgreSQL's version from "${text.trim()}"`);
  return Number(match[1]);
}

/** The tools' paths below {@link clusterToolsDir}, whether or not they exist. */
export function clusterToolPaths(env: NodeJS.ProcessEnv = process.env): Omit<ClusterTools, 'postgresBin'> {
  const dir = clusterToolsDir(env);
  return {
    server: join(dir, 'bin', 'server'),
    sqlTool: join(dir, 'bin', 'sql'),
    schemaDir: join(dir, versions.schemaDir),
  };
}

/** Finds every tool, or throws {@link ClusterToolsMissingError} naming each one missing. */
export function findClusterTools(env: NodeJS.ProcessEnv = process.env): ClusterTools {
  const paths = clusterToolPaths(env);
  const postgresBin = findPostgresBin();
  const missing: string[] = [];
  if (!postgresBin) missing.push('PostgreSQL server binaries (initdb, pg_ctl): no /usr/lib/postgresql/*/bin');
  if (!isExecutable(paths.server)) missing.push(`Temporal server: ${paths.server}`);
  if (!isExecutable(paths.sqlTool)) missing.push(`Temporal SQL tool: ${paths.sqlTool}`);
  for (const store of ['temporal', 'visibility']) {
    const dir = join(paths.schemaDir, store, 'versioned');
    if (!existsSync(dir)) missing.push(`schema files: ${dir}`);
  }
  if (missing.length > 0) throw new ClusterToolsMissingError(missing);
  return { ...paths, postgresBin: postgresBin! };
}

/**
 * The folder toxiproxy is built into: beside the Temporal server's ({@link clusterToolsDir}), so
 * that a fresh clone on the same machine reuses it too.
 */
export function toxiproxyDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(clusterToolsDir(env)), `toxiproxy-v${versions.toxiproxy}`);
}

/** The toxiproxy server binary below {@link toxiproxyDir}, whether or not it exists. */
export function toxiproxyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(toxiproxyDir(env), 'bin', 'toxiproxy-server');
}

/** The toxiproxy server, or {@link ClusterToolsMissingError} when it has not been built. */
export function findToxiproxy(env: NodeJS.ProcessEnv = process.env): string {
  const path = toxiproxyPath(env);
  if (!isExecutable(path)) throw new ClusterToolsMissingError([`toxiproxy server: ${path}`]);
  return path;
}
