/**
 * The lockfile check: the project's own package.json and package-lock.json pass it; copies made
 * inconsistent on purpose fail it, through the command CI runs, with a message naming the fault.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkLockfile } from '../../scripts/check-lockfile';

const root = resolve(__dirname, '../..');
const SCRIPT = join(root, 'scripts', 'check-lockfile.ts');

type Specs = Record<string, string>;
interface Manifest {
  dependencies: Specs;
  devDependencies: Specs;
  overrides: Specs;
  allowScripts: Record<string, boolean>;
}
interface Lock {
  packages: Record<string, { version: string; devDependencies: Specs; optionalDependencies: Specs }>;
}

/** A temp project holding edited copies of the real package.json and package-lock.json. */
function brokenCopy(edit: (pkg: Manifest, lock: Lock) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-lock-'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lock;
  edit(pkg, lock);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
  return dir;
}

/** Runs the check as CI does; returns its exit status and output. */
function runCheck(dir?: string): { status: number; output: string } {
  try {
    const output = execFileSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', SCRIPT, ...(dir ? [dir] : [])],
      { cwd: root, encoding: 'utf8', stdio: 'pipe' },
    );
    return { status: 0, output };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { status: e.status, output: e.stdout + e.stderr };
  }
}

describe('check-lockfile', () => {
  it('passes on the project itself, with every @swc/core platform package locked', () => {
    expect(checkLockfile(root)).toEqual([]);
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lock;
    const swc = lock.packages['node_modules/@swc/core'];
    const platforms = Object.keys(swc.optionalDependencies);
    expect(platforms.length).toBeGreaterThanOrEqual(12);
    for (const name of platforms) expect(lock.packages[`node_modules/${name}`]?.version).toBe(swc.version);
    expect(runCheck()).toEqual({ status: 0, output: expect.stringContaining('agrees with package.json') });
  });

  it('fails, through the CLI, when package.json and the lock disagree on a dependency', () => {
    const dir = brokenCopy((pkg) => {
      pkg.dependencies.zod = '3.25.75';
      pkg.devDependencies['left-pad'] = '1.3.0';
    });
    const { status, output } = runCheck(dir);
    expect(status).toBe(1);
    expect(output).toContain('does not match package.json');
    expect(output).toContain(
      `dependencies: zod is "3.25.75" in package.json but "3.25.76" in package-lock.json's root entry`,
    );
    expect(output).toContain('direct dependency zod@3.25.75 is locked at 3.25.76');
    expect(output).toContain(
      "devDependencies: left-pad@1.3.0 is in package.json but not in package-lock.json's root entry",
    );
  });

  it('names the platform packages of @swc/core that the lock lacks', () => {
    const dir = brokenCopy((_pkg, lock) => {
      delete lock.packages['node_modules/@swc/core-darwin-arm64'];
      delete lock.packages['node_modules/@swc/core-win32-x64-msvc'];
    });
    const problems = checkLockfile(dir);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^@swc\/core@[\d.]+ \(node_modules\/@swc\/core\) lists optional dependencies that package-lock.json lacks: @swc\/core-darwin-arm64@[\d.]+, @swc\/core-win32-x64-msvc@[\d.]+\./,
    );
  });

  it('flags a dependency left out of the root entry, a broken override and an unreviewed install script', () => {
    const dir = brokenCopy((pkg, lock) => {
      delete lock.packages[''].devDependencies.jest;
      pkg.overrides['@swc/core'] = '1.16.17';
      delete pkg.allowScripts.protobufjs;
    });
    const problems = checkLockfile(dir);
    // protobufjs's install script, once for each copy in the tree (gRPC's loader, OTel's exporter).
    const unreviewed = problems.filter((p) => /^protobufjs@[\d.]+ .* has an install script/.test(p));
    expect(unreviewed.length).toBeGreaterThanOrEqual(1);
    expect(problems).toHaveLength(2 + unreviewed.length);
    expect(problems).toEqual(
      expect.arrayContaining([
        "devDependencies: jest@29.7.0 is in package.json but not in package-lock.json's root entry",
        expect.stringMatching(
          /^overrides pins @swc\/core to 1\.16\.17, but node_modules\/@swc\/core is locked at /,
        ),
        expect.stringMatching(
          /^protobufjs@[\d.]+ \(node_modules\/@grpc\/proto-loader\/node_modules\/protobufjs\) has an install script that "allowScripts" in package.json neither approves nor denies/,
        ),
      ]),
    );
  });
});
