/**
 * What the package suites share: npm and node children run as by hand, the project packed with
 * the real `npm pack`, and a consumer project that installs the tarball without the registry.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { withoutChildCaches } from '../support/child-caches-env';

export const root = resolve(__dirname, '..', '..');

export const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
  engines: { node: string };
};

/**
 * The environment for npm and node children: without the npm_* variables of an enclosing
 * `npm test` (its lifecycle, package fields and config) or the suites' ts-node cache preload, so
 * they behave as run by hand.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const nodeOptions = withoutChildCaches(env.NODE_OPTIONS);
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  else delete env.NODE_OPTIONS;
  return env;
}

export function run(command: string, args: string[], options: ExecFileSyncOptions): string {
  try {
    return execFileSync(command, args, {
      env: cleanEnv(),
      encoding: 'utf8',
      stdio: 'pipe',
      ...options,
    }) as string;
  } catch (err) {
    const e = err as { message: string; stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
    );
  }
}

/** `npm pack` of the project into `dir/pack` (prepack removes dist/ and builds it afresh); the tarball. */
export function packProject(dir: string): string {
  const packDir = join(dir, 'pack');
  mkdirSync(packDir);
  run('npm', ['pack', '--pack-destination', packDir], { cwd: root });
  const packed = readdirSync(packDir).filter((f) => f.endsWith('.tgz'));
  if (packed.length !== 1) throw new Error(`npm pack made ${packed.length} tarballs in ${packDir}`);
  return join(packDir, packed[0]);
}

/**
 * The project's tarball, packed by {@link packProject} once per jest run for the suites that need
 * it (installed.test and init.test), in the run's folder. It is packed again if any file of the
 * project (what git tracks or would track) changed since: the key is a hash of them all. Outside
 * jest's global setup, a fresh pack under `dir`.
 */
export function sharedTarball(dir: string): string {
  const runDir = process.env.AMSFLOW_TEST_PACK_DIR;
  if (!runDir) return packProject(dir);
  const keyed = join(runDir, projectHash());
  const done = join(keyed, 'tarball');
  if (existsSync(done)) return readFileSync(done, 'utf8');
  mkdirSync(keyed, { recursive: true });
  const tarball = packProject(keyed);
  writeFileSync(done, tarball);
  return tarball;
}

/** A hash of every file of the project that git tracks or would track (not ignored). */
function projectHash(): string {
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
    .split('\0')
    .filter(Boolean)
    .sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const path = join(root, file);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    hash.update(`${file}\0`);
    // A symbolic link (this worktree's node_modules) by where it points.
    if (stat?.isSymbolicLink()) hash.update(readlinkSync(path));
    else if (stat?.isFile()) hash.update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * A consumer project in `dir/consumer` with the tarball installed. Its other dependencies are
 * `file:` links to this project's node_modules, so the install needs neither the registry nor
 * the npm cache (`--offline`), and takes about a second. Returns the consumer's folder.
 */
export function installConsumer(dir: string, tarball: string): string {
  const consumer = join(dir, 'consumer');
  mkdirSync(consumer);
  const link = (name: string) => `file:${join(root, 'node_modules', name)}`;
  const dependencies = Object.fromEntries(Object.keys(manifest.dependencies).map((n) => [n, link(n)]));
  // Not amsflow's dependencies: a consumer's own, for its types and for amsflow/testing.
  const devDependencies = {
    '@types/node': link('@types/node'),
    '@temporalio/testing': link('@temporalio/testing'),
  };
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify(
      { name: 'consumer', version: '1.0.0', private: true, dependencies, devDependencies },
      null,
      2,
    ),
  );
  // Install scripts off: the links would run their packages' own `prepare`.
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], {
    cwd: consumer,
  });
  return consumer;
}
