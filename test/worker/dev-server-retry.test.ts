/**
 * A dev server that fails to start says why in its own words: the error carries the server's
 * output and how it ended. A scratch server (jest's shared one) is tried again on fresh ports and
 * a fresh database; when it gives up, every attempt is listed with the last one's output.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevServerStartError, startDevServer } from '../../worker/dev-server';
import { startScratchDevServer } from '../../worker/dev-server-retry';

const dir = mkdtempSync(join(tmpdir(), 'amsflow-dev-server-retry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function realCli(): string {
  const path = process.env.TEMPORAL_CLI_PATH;
  if (!path) throw new Error('TEMPORAL_CLI_PATH is set by the jest global setup');
  return path;
}

/** A folder where the database file should be: the real server refuses it and exits 1. */
function folderAsDb(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

/**
 * A CLI that fails its first `failures` starts (a line on stdout and one on stderr, exit 3), then
 * runs the real one; every command line it was given is appended to `<script>.calls`.
 */
function flakyCli(name: string, failures: number): { path: string; calls: () => string[] } {
  const path = join(dir, name);
  const count = `${path}.count`;
  writeFileSync(
    path,
    `#!/bin/sh
echo "$*" >> "${path}.calls"
n=$(cat "${count}" 2>/dev/null || echo 0)
echo $((n + 1)) > "${count}"
if [ "$n" -lt ${failures} ]; then
  echo "starting (attempt $((n + 1)))"
  echo "listen tcp: bind: address already in use (attempt $((n + 1)))" >&2
  exit 3
fi
exec "${realCli()}" "$@"
`,
  );
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(`${path}.calls`, 'utf8').trim().split('\n') };
}

const portOf = (commandLine: string) => /--port (\d+)/.exec(commandLine)?.[1];

describe('a dev server that does not start', () => {
  it('shows the server’s own output and its exit code', async () => {
    const start = startDevServer({ cliPath: realCli(), dbFile: folderAsDb('db-folder'), uiPort: false });
    await expect(start).rejects.toThrow(DevServerStartError);
    const err = (await start.catch((e: unknown) => e)) as DevServerStartError;
    expect(err.exit).toBe('exit code 1');
    expect(err.output).toMatch(/unable to open database file/);
    expect(err.message).toMatch(/^Temporal dev server exited with 1 before it was ready/);
    expect(err.message).toMatch(
      /The server's output \(exit code 1\):\n {2}\| .*unable to open database file/,
    );
  }, 60_000);

  it('a scratch server is tried again on fresh ports, and starts', async () => {
    const cli = flakyCli('flaky-once', 1);
    const lines: string[] = [];
    const server = await startScratchDevServer({
      cliPath: cli.path,
      dbFile: join(dir, 'flaky.db'),
      uiPort: false,
      log: (line) => lines.push(line),
    });
    try {
      const calls = cli.calls();
      expect(calls).toHaveLength(2);
      expect(portOf(calls[1])).not.toBe(portOf(calls[0]));
      expect(server.address).toBe(`127.0.0.1:${portOf(calls[1])}`);
      expect(lines).toEqual([
        expect.stringMatching(
          /^Temporal dev server did not start \(attempt 1: .*\(exit code 3\)\); trying again/,
        ),
      ]);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('when it gives up: every attempt, and the last one’s output and exit code', async () => {
    const cli = flakyCli('flaky-always', 99);
    const start = startScratchDevServer({
      cliPath: cli.path,
      dbFile: join(dir, 'never.db'),
      uiPort: false,
      attempts: 2,
    });
    const err = (await start.catch((e: unknown) => e)) as DevServerStartError;
    expect(err).toBeInstanceOf(DevServerStartError);
    expect(cli.calls()).toHaveLength(2);
    expect(err.message).toMatch(
      /^Temporal dev server did not start in 2 attempts, on fresh ports each time:\n/,
    );
    expect(err.message).toMatch(/ {2}- attempt 1: .*\(exit code 3\)\n {2}- attempt 2: .*\(exit code 3\)\n/);
    // Its stdout and stderr, in whichever order the two pipes were read.
    expect(err.message).toContain("The server's output (exit code 3):\n  | ");
    expect(err.message).toContain('  | starting (attempt 2)');
    expect(err.message).toContain('  | listen tcp: bind: address already in use (attempt 2)');
    expect(err.message).not.toContain('(attempt 1)\n');
  }, 60_000);
});
