/**
 * `npm run check:lockfile` (CI runs it before the tests): fails with one line per problem when
 * package-lock.json disagrees with package.json or could not install the same tree everywhere.
 *
 * - The lock's root entry (`packages[""]`) carries exactly package.json's dependency fields.
 * - Every direct dependency is locked, at the pinned version when package.json pins one; every
 *   exact `overrides` pin holds for every copy of that package in the lock.
 * - Every optional dependency of a locked package is locked too (e.g. all of @swc/core's
 *   per-platform binaries): npm silently leaves out optional packages it cannot resolve, and
 *   `npm ci` then refuses the lock on every machine.
 * - Every locked package with an install script is approved or denied in `allowScripts`.
 *
 * Usage: `ts-node scripts/check-lockfile.ts [project folder]` (default: this project).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

type Specs = Record<string, string>;

interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Specs;
  devDependencies?: Specs;
  optionalDependencies?: Specs;
  peerDependencies?: Specs;
}

interface Lockfile {
  lockfileVersion?: number;
  packages?: Record<string, LockEntry>;
}

interface PackageJson {
  overrides?: Record<string, unknown>;
  allowScripts?: Record<string, unknown>;
  [field: string]: unknown;
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;

function specsOf(source: unknown, field: string): Specs {
  const value = (source as Record<string, unknown>)[field];
  return value && typeof value === 'object' ? (value as Specs) : {};
}

/** The package name of a lock entry: its own `name` (aliases) or the last `node_modules/` segment. */
function nameAt(path: string, entry: LockEntry): string {
  return entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** Where Node would find `name` when required from the package at `from` (`''` is the root). */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** Whether an `allowScripts` key (`pkg`, `pkg@1.2.3`, `pkg@1.2.3 || 1.2.4`) covers this package. */
function coveredBy(key: string, name: string, version: string | undefined): boolean {
  const at = key.indexOf('@', 1);
  if (at < 0) return key === name;
  if (key.slice(0, at) !== name) return false;
  const versions = key.slice(at + 1).split('||');
  return versions.some((v) => v.trim() === '*' || v.trim() === version);
}

function compareRoot(pkg: PackageJson, root: LockEntry, problems: string[]): void {
  for (const field of DEPENDENCY_FIELDS) {
    const wanted = specsOf(pkg, field);
    const locked = specsOf(root, field);
    for (const [name, spec] of Object.entries(wanted)) {
      if (!(name in locked)) {
        problems.push(
          `${field}: ${name}@${spec} is in package.json but not in package-lock.json's root entry`,
        );
      } else if (locked[name] !== spec) {
        problems.push(
          `${field}: ${name} is "${spec}" in package.json but "${locked[name]}" in package-lock.json's root entry`,
        );
      }
    }
    for (const name of Object.keys(locked)) {
      if (!(name in wanted)) {
        problems.push(`${field}: ${name} is in package-lock.json's root entry but not in package.json`);
      }
    }
  }
}

/**
 * Checks the project in `dir` (package.json and package-lock.json) and returns its problems,
 * one sentence each; an empty list means the lock is complete and agrees with package.json.
 */
export function checkLockfile(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as Lockfile;
  const packages = lock.packages;
  if (!packages || !packages['']) {
    return [
      `package-lock.json has no "packages" section (lockfileVersion ${lock.lockfileVersion}; npm 7+ writes 3)`,
    ];
  }
  const problems: string[] = [];
  compareRoot(pkg, packages[''], problems);
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    for (const [name, spec] of Object.entries(specsOf(pkg, field))) {
      const version = packages[`node_modules/${name}`]?.version;
      if (version === undefined) {
        problems.push(`direct dependency ${name}@${spec} is missing from package-lock.json`);
      } else if (EXACT_VERSION.test(spec) && version !== spec) {
        problems.push(`direct dependency ${name}@${spec} is locked at ${version}`);
      }
    }
  }

  const pins = Object.entries(pkg.overrides ?? {}).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && EXACT_VERSION.test(e[1]),
  );
  const allow = Object.keys(pkg.allowScripts ?? {});
  for (const [path, entry] of Object.entries(packages)) {
    if (!path || entry.link) continue;
    const name = nameAt(path, entry);
    for (const [pinned, version] of pins) {
      if (name === pinned && entry.version !== version) {
        problems.push(`overrides pins ${name} to ${version}, but ${path} is locked at ${entry.version}`);
      }
    }
    const unlocked = Object.entries(entry.optionalDependencies ?? {})
      .filter(([dep]) => !locate(packages, path, dep))
      .map(([dep, spec]) => `${dep}@${spec}`);
    if (unlocked.length > 0) {
      problems.push(
        `${name}@${entry.version} (${path}) lists optional dependencies that package-lock.json lacks: ` +
          `${unlocked.join(', ')}. npm leaves out optional packages it cannot resolve: check with ` +
          `\`npm view ${unlocked[0]} version\`; if a version was never published, pin ${name} in ` +
          '"overrides" to a version whose optional packages all were, then refresh the lock',
      );
    }
    for (const [dep, spec] of Object.entries(entry.dependencies ?? {})) {
      if (!locate(packages, path, dep)) {
        problems.push(`${name}@${entry.version} depends on ${dep}@${spec}, which package-lock.json lacks`);
      }
    }
    if (entry.hasInstallScript && !allow.some((key) => coveredBy(key, name, entry.version))) {
      problems.push(
        `${name}@${entry.version} (${path}) has an install script that "allowScripts" in package.json ` +
          `neither approves nor denies: review it, then \`npm install-scripts approve ${name}\` or \`npm install-scripts deny ${name}\``,
      );
    }
  }
  return problems;
}

if (require.main === module) {
  const dir = resolve(process.argv[2] ?? join(__dirname, '..'));
  const problems = checkLockfile(dir);
  if (problems.length > 0) {
    console.error(`check-lockfile: package-lock.json in ${dir} does not match package.json:`);
    for (const problem of problems) console.error(`  - ${problem}`);
    console.error('Fix package.json or refresh the lock with `npm install`, then commit both files.');
    process.exit(1);
  }
  console.log('check-lockfile: package-lock.json is complete and agrees with package.json');
}
