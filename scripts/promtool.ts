/**
 * Prometheus's `promtool`, for the test that checks the whole `/metrics` endpoint with
 * `promtool check metrics`. It comes from Debian's `prometheus` package, but only the one binary:
 * the package is downloaded (`apt-get download`, no root needed) and `usr/bin/promtool` extracted
 * into `.amsflow/tools/promtool/`, so that installing it never starts a Prometheus server on
 * this machine (the package's postinst would). A `promtool` on the PATH, or `AMSFLOW_PROMTOOL`,
 * is used as it is.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { toolsDir } from '../tools/temporal-binaries';

/** Where setup puts the extracted binary. */
export const PROMTOOL_PATH = join(toolsDir, 'promtool', 'promtool');

/** How to get it, for messages. */
export const PROMTOOL_HINT =
  "run `npm run setup` (it extracts promtool from Debian's prometheus package into .amsflow/tools), " +
  'or set AMSFLOW_PROMTOOL to a promtool binary';

/** The promtool to run, or undefined when there is none. */
export function findPromtool(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AMSFLOW_PROMTOOL) return existsSync(env.AMSFLOW_PROMTOOL) ? env.AMSFLOW_PROMTOOL : undefined;
  if (existsSync(PROMTOOL_PATH)) return PROMTOOL_PATH;
  return (env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'promtool'))
    .find((path) => existsSync(path));
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Extracts promtool from Debian's prometheus package into {@link PROMTOOL_PATH}; returns its path.
 * Throws with the reason when apt-get or dpkg-deb cannot (not Debian, no package lists, offline).
 */
export function installPromtool(log: (line: string) => void = (l) => console.error(l)): string {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get') || !existsSync('/usr/bin/dpkg-deb'))
    throw new Error(
      `promtool is missing and this is not Debian (apt-get, dpkg-deb): install Prometheus's promtool and set AMSFLOW_PROMTOOL`,
    );
  const work = mkdtempSync(join(tmpdir(), 'amsflow-promtool-'));
  try {
    const download = () =>
      execFileSync('apt-get', ['download', '-qq', 'prometheus'], {
        cwd: work,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    try {
      log('amsflow setup: apt-get download prometheus (for promtool, the metrics test)');
      download();
    } catch (err) {
      if (!isRoot()) throw err;
      // No package lists yet (a fresh container): fetch them, once.
      execFileSync('apt-get', ['update', '-qq'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      download();
    }
    const deb = readdirSync(work).find((name) => /^prometheus_.*\.deb$/.test(name));
    if (!deb) throw new Error('apt-get download prometheus wrote no package');
    execFileSync('dpkg-deb', ['-x', join(work, deb), join(work, 'x')]);
    mkdirSync(join(toolsDir, 'promtool'), { recursive: true });
    copyFileSync(join(work, 'x', 'usr', 'bin', 'promtool'), PROMTOOL_PATH);
    chmodSync(PROMTOOL_PATH, 0o755);
    return PROMTOOL_PATH;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
