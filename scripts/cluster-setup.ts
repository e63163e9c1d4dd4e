/**
 * `npm run cluster:setup`: provides what the native Temporal cluster test needs, with the timing
 * of each step. PostgreSQL: Debian's `postgresql` package, installed with apt-get when its
 * server binaries are missing (as root). Temporal: the server and its SQL tool built with
 * `go install` from the Go module at the version deploy/versions.json pins (the one
 * docker-compose.yml runs), into a folder outside the clone (scripts/cluster-tools.ts), with that
 * module's PostgreSQL schema files beside them; toxiproxy's server (the cluster chaos run's network
 * faults) built the same way from its Go module, into a folder beside them; the OpenTelemetry
 * Collector that the tracing test exports to, built with `go build` from our Go module in
 * tools/otelcol (scripts/otelcol.ts), into a folder beside them too. Builds are skipped when the
 * binaries are there.
 * A missing prerequisite fails with a message saying what to install; nothing is skipped quietly.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLUSTER_VERSIONS,
  GO_PACKAGES,
  clusterToolPaths,
  clusterToolsDir,
  findClusterTools,
  findPostgresBin,
  isExecutable,
  postgresMajor,
  toxiproxyDir,
  toxiproxyPath,
} from './cluster-tools';
import { OTELCOL_GO_MODULE, OTELCOL_MODULE_DIR, otelcolDir, otelcolPath, otelcolVersion } from './otelcol';

class SetupError extends Error {}

function log(line: string): void {
  console.log(`cluster:setup: ${line}`);
}

/** Runs one named step and prints how long it took. */
function step<T>(name: string, run: () => T): T {
  const started = Date.now();
  const result = run();
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): string {
  try {
    return execFileSync(command, args, { env, cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const tail = (e.stderr ?? '').trim().split('\n').slice(-15).join('\n');
    throw new SetupError(`\`${command} ${args.join(' ')}\` failed: ${e.message.split('\n')[0]}\n${tail}`);
  }
}

function ensurePostgres(): string {
  let bin = findPostgresBin();
  if (!bin) {
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get') || !isRoot) {
      throw new SetupError(
        "PostgreSQL's server binaries (initdb, pg_ctl) are missing and cannot be installed here " +
          '(needs root on Debian). Install the `postgresql` package (Debian/Ubuntu) or put initdb on PATH.',
      );
    }
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    log('apt-get install postgresql');
    run('apt-get', ['update', '-qq'], env);
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'], env);
    bin = findPostgresBin();
    if (!bin)
      throw new SetupError('apt-get installed postgresql but no /usr/lib/postgresql/*/bin/initdb appeared');
  }
  const major = postgresMajor(bin);
  if (major < CLUSTER_VERSIONS.postgresMinMajor) {
    throw new SetupError(
      `PostgreSQL ${major} in ${bin} is too old: the ${CLUSTER_VERSIONS.persistencePlugin} plugin needs ${CLUSTER_VERSIONS.postgresMinMajor}+`,
    );
  }
  log(`PostgreSQL ${major} in ${bin}`);
  return bin;
}

function goEnv(): NodeJS.ProcessEnv {
  // GOTOOLCHAIN=local: a module that needs a newer Go fails here instead of downloading one.
  return { ...process.env, GOTOOLCHAIN: 'local' };
}

function ensureGo(): void {
  try {
    log(run('go', ['version'], goEnv()).trim());
  } catch (err) {
    throw new SetupError(
      `Go is needed to build the Temporal server (go install ${GO_PACKAGES.server}): ${(err as Error).message}`,
    );
  }
}

/** Downloads the module source (for its schema files); returns its folder in the module cache. */
function moduleSource(): string {
  const out = run(
    'go',
    ['mod', 'download', '-json', `${CLUSTER_VERSIONS.temporalGoModule}@v${CLUSTER_VERSIONS.temporalServer}`],
    goEnv(),
  );
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir || info.Error) throw new SetupError(`go mod download failed: ${info.Error ?? out}`);
  return info.Dir;
}

function buildBinaries(): void {
  const paths = clusterToolPaths();
  const bin = join(clusterToolsDir(), 'bin');
  for (const [name, path, pkg] of [
    ['server', paths.server, GO_PACKAGES.server],
    ['sql tool', paths.sqlTool, GO_PACKAGES.sqlTool],
  ] as const) {
    if (isExecutable(path)) {
      log(`${name}: ${path} (already built)`);
      continue;
    }
    step(`go install ${pkg}`, () => {
      mkdirSync(bin, { recursive: true });
      run('go', ['install', pkg], { ...goEnv(), GOBIN: bin });
    });
  }
  const version = run(paths.server, ['--version']).trim();
  if (!version.includes(CLUSTER_VERSIONS.temporalServer)) {
    throw new SetupError(`${paths.server} reports "${version}", expected ${CLUSTER_VERSIONS.temporalServer}`);
  }
}

/** toxiproxy's `cmd/server`, installed as `server` into a folder of its own, then renamed. */
function buildToxiproxy(): void {
  const path = toxiproxyPath();
  if (isExecutable(path)) {
    log(`toxiproxy: ${path} (already built)`);
    return;
  }
  const bin = join(toxiproxyDir(), 'bin');
  step(`go install ${GO_PACKAGES.toxiproxy}`, () => {
    mkdirSync(bin, { recursive: true });
    run('go', ['install', GO_PACKAGES.toxiproxy], { ...goEnv(), GOBIN: bin });
    renameSync(join(bin, 'server'), path);
  });
  // (Its -version prints "git": the version is stamped by its Makefile, not by go install.)
  const module = `${CLUSTER_VERSIONS.toxiproxyGoModule}\tv${CLUSTER_VERSIONS.toxiproxy}`;
  if (!run('go', ['version', '-m', path], goEnv()).includes(module)) {
    throw new SetupError(`${path} was not built from ${module.replace('\t', '@')}`);
  }
}

/**
 * The OpenTelemetry Collector: `go build` of tools/otelcol (its go.mod and go.sum pin every module;
 * -mod=readonly, so a module missing from them fails instead of being added), into a temporary file
 * renamed into place, so that an interrupted build leaves no binary behind.
 */
function buildOtelcol(): void {
  const path = otelcolPath();
  if (isExecutable(path)) {
    log(`OpenTelemetry Collector: ${path} (already built)`);
    return;
  }
  const partial = `${path}.partial`;
  step(`go build tools/otelcol (OpenTelemetry Collector v${otelcolVersion()})`, () => {
    mkdirSync(join(path, '..'), { recursive: true });
    const args = [
      'build',
      '-mod=readonly',
      '-trimpath',
      '-buildvcs=false',
      '-ldflags=-s -w',
      '-o',
      partial,
      '.',
    ];
    try {
      run('go', args, goEnv(), OTELCOL_MODULE_DIR);
    } catch (err) {
      rmSync(partial, { force: true });
      throw err;
    }
    renameSync(partial, path);
  });
  const module = `${OTELCOL_GO_MODULE}\tv${otelcolVersion()}`;
  if (!run('go', ['version', '-m', path], goEnv()).includes(module)) {
    throw new SetupError(`${path} was not built with ${module.replace('\t', '@')}`);
  }
  log(`OpenTelemetry Collector: ${path} (${(statSync(path).size / 1e6).toFixed(1)} MB)`);
}

function copySchema(moduleDir: string): void {
  const target = clusterToolPaths().schemaDir;
  if (existsSync(join(target, 'visibility', 'versioned'))) return;
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(join(moduleDir, CLUSTER_VERSIONS.schemaDir), target, { recursive: true });
}

function main(): void {
  const started = Date.now();
  log(
    `Temporal server v${CLUSTER_VERSIONS.temporalServer}, PostgreSQL, toxiproxy v${CLUSTER_VERSIONS.toxiproxy} and the OpenTelemetry Collector v${otelcolVersion()}, tools in ${clusterToolsDir()}, ${toxiproxyDir()} and ${otelcolDir()}`,
  );
  step('PostgreSQL', ensurePostgres);
  step('Go', ensureGo);
  const moduleDir = step('Temporal module source (go mod download)', moduleSource);
  step('Temporal binaries', buildBinaries);
  step('schema files', () => copySchema(moduleDir));
  step('toxiproxy', buildToxiproxy);
  step('OpenTelemetry Collector', buildOtelcol);
  const tools = { ...findClusterTools(), toxiproxy: toxiproxyPath(), otelcol: otelcolPath() };
  writeFileSync(
    join(clusterToolsDir(), 'installed.json'),
    JSON.stringify({ versions: CLUSTER_VERSIONS, tools, at: new Date().toISOString() }, null, 2),
  );
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

try {
  main();
} catch (err) {
  console.error(`cluster:setup: FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
