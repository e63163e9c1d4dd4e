/**
 * `npm run setup` (also the postinstall, so `npm ci` and `npm install` run it): provides the
 * Temporal binaries, Debian's chromium for the browser tests, promtool for the metrics test
 * (scripts/promtool.ts) and Node 24 for the suite that runs amsflow on it (scripts/node24.ts).
 * Quiet and fast when everything is already there. A browser, promtool or Node 24 it cannot
 * provide is reported on stderr (the tests needing them then fail, saying so); the rest of the
 * setup goes on.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolveTemporalBinaries, ToolsUnavailableError } from '../tools/temporal-binaries';
import { findPromtool, installPromtool, PROMTOOL_HINT } from './promtool';
import { installNode24, NODE24_HINT } from './node24';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const EMOJI_FONT = '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf';

function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH) && (process.env.CHROMIUM_PATH || existsSync(EMOJI_FONT))) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get') || !isRoot) {
    console.error(`amsflow setup: ${CHROMIUM_PATH} missing; install Debian's chromium for the browser test`);
    return;
  }
  console.error('amsflow setup: apt-get install chromium (for the browser test)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync(
    'apt-get',
    [
      'install',
      '-y',
      '-qq',
      '--no-install-recommends',
      'chromium',
      'fonts-dejavu-core',
      'fonts-noto-color-emoji',
    ],
    {
      stdio: 'inherit',
      env,
    },
  );
}

function ensurePromtool(): void {
  if (findPromtool()) return;
  try {
    console.error(`amsflow setup: promtool at ${installPromtool()}`);
  } catch (err) {
    console.error(
      `amsflow setup: could not install promtool (${(err as Error).message.split('\n')[0]}); ${PROMTOOL_HINT}`,
    );
  }
}

function ensureNode24(): void {
  try {
    installNode24();
  } catch (err) {
    console.error(
      `amsflow setup: could not install Node 24 (${(err as Error).message.split('\n')[0]}); ${NODE24_HINT}`,
    );
  }
}

async function main(): Promise<void> {
  await resolveTemporalBinaries();
  if (!process.argv.includes('--no-browser')) ensureChromium();
  if (!process.argv.includes('--no-promtool')) ensurePromtool();
  if (!process.argv.includes('--no-node24')) ensureNode24();
}

main().catch((err: unknown) => {
  console.error(err instanceof ToolsUnavailableError ? err.message : err);
  process.exit(1);
});
