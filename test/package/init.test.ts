/**
 * `amsflow init` as a new user runs it: the project is packed (`npm pack`), the tarball installed
 * into a consumer, and its `amsflow init` makes a bot project in a fresh folder outside this
 * repository. That project installs with plain `npm install` (amsflow from its `vendor/` copy of
 * the tarball, jest, ts-jest and TypeScript from the registry, the Temporal binaries by its own
 * postinstall into its `.amsflow/tools`) and its `npm test` is green: its bot exports only
 * `onMessage`, and its test sets a reminder that fires (time skipping) and answers an approval.
 * A type error in a test fails `npx jest` there. Measured times go to
 * test-artifacts/scaffold-timings.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, installConsumer, manifest, sharedTarball, root } from './support';

/** The environment of a user's shell: no npm_* of this run, no Temporal binaries handed in. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(cleanEnv()).filter(([key]) => !/^(AMS|AMSFLOW|TEMPORAL)_/.test(key)),
  );
}

/** Runs a command in `cwd`; its exit code, its output (both streams) and how long it took. */
function sh(command: string, args: string[], cwd: string, timeoutMs: number) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env: userEnv(), encoding: 'utf8', timeout: timeoutMs });
  return {
    status: result.status,
    // Without colours: ts-jest and jest colour their reports.
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`.replace(
      // eslint-disable-next-line no-control-regex -- ANSI escapes
      /\x1b\[[0-9;]*m/g,
      '',
    ),
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

const MINUTE = 60_000;

describe('amsflow init: a bot project of its own, from the packed package', () => {
  let dir: string;
  let project: string;
  const timings: Record<string, number> = {};

  beforeAll(() => {
    // Outside the repository: nothing of it (tsconfig, node_modules, jest config) is found by walking up.
    dir = mkdtempSync(join(tmpdir(), 'amsflow-init-'));
    let started = Date.now();
    const consumer = installConsumer(dir, sharedTarball(dir));
    timings.packAndConsumerInstall = (Date.now() - started) / 1000;
    project = join(dir, 'my-bot');
    started = Date.now();
    const init = sh(join(consumer, 'node_modules', '.bin', 'amsflow'), ['init', project], dir, MINUTE);
    timings.init = (Date.now() - started) / 1000;
    if (init.status !== 0) throw new Error(`amsflow init failed:\n${init.output}`);
  }, 5 * MINUTE);

  afterAll(() => {
    mkdirSync(join(root, 'test-artifacts'), { recursive: true });
    writeFileSync(
      join(root, 'test-artifacts', 'scaffold-timings.json'),
      `${JSON.stringify(timings, null, 2)}\n`,
    );
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes a bot with handlers only, its test, and a package depending on the tarball that ran', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    const tarball = `amsflow-${manifest.version}.tgz`;
    expect(pkg.dependencies).toEqual({ amsflow: `file:vendor/${tarball}` });
    expect(existsSync(join(project, 'vendor', tarball))).toBe(true);
    expect(pkg.scripts).toMatchObject({
      start: 'exec amsflow start bot.ts',
      test: 'jest',
      postinstall: 'amsflow setup',
    });
    expect(pkg.jest).toEqual({ preset: 'amsflow' });
    expect(Object.keys(pkg.devDependencies)).toEqual(
      expect.arrayContaining(['jest', 'ts-jest', 'typescript']),
    );
    const bot = readFileSync(join(project, 'bot.ts'), 'utf8');
    expect(bot.match(/^export .*/gm)).toEqual([expect.stringMatching(/^export const onMessage = /)]);
    expect(readFileSync(join(project, 'bot.test.ts'), 'utf8')).toContain('createBotTestEnv');
    const readme = readFileSync(join(project, 'README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
    expect(readFileSync(join(project, '.gitignore'), 'utf8')).toMatch(/^node_modules\/$/m);
  });

  it('refuses a folder that is not empty, and writes nothing there', () => {
    const bin = join(dir, 'consumer', 'node_modules', '.bin', 'amsflow');
    const again = sh(bin, ['init', project], dir, MINUTE);
    expect(again.status).toBe(1);
    expect(again.output).toContain('exists and is not an empty folder');
  });

  it(
    'installs with npm install: amsflow from vendor/, the Temporal binaries by its own postinstall',
    () => {
      const install = sh('npm', ['install', '--no-audit', '--no-fund'], project, 10 * MINUTE);
      timings.scaffoldInstall = install.seconds;
      if (install.status !== 0) throw new Error(`npm install failed:\n${install.output}`);
      for (const binary of ['temporal', 'temporal-test-server']) {
        expect(existsSync(join(project, '.amsflow', 'tools', 'venv', 'bin', binary))).toBe(true);
      }
    },
    11 * MINUTE,
  );

  it(
    'passes its own npm test: a reminder fires and an approval is answered',
    () => {
      const test = sh('npm', ['test'], project, 8 * MINUTE);
      timings.scaffoldTest = test.seconds;
      if (test.status !== 0) throw new Error(`npm test failed:\n${test.output}`);
      expect(test.output).toMatch(/Tests:\s+3 passed, 3 total/);
    },
    9 * MINUTE,
  );

  it(
    'type-checks its tests: a type error fails npx jest',
    () => {
      writeFileSync(
        join(project, 'typo.test.ts'),
        "const count: number = 'three';\ntest('counts', () => expect(count).toBeDefined());\n",
      );
      const test = sh('npx', ['jest', 'typo.test.ts'], project, 5 * MINUTE);
      timings.typeErrorRun = test.seconds;
      expect(test.status).not.toBe(0);
      expect(test.output).toContain("TS2322: Type 'string' is not assignable to type 'number'");
    },
    6 * MINUTE,
  );
});
