/**
 * A passing bot test prints jest's summary and nothing else: the harness's Runtime drops the
 * SDK's known benign warnings, and leaves nothing open (the bot project's jest has no forceExit,
 * and jest exits by itself). A real warning (a handler that failed) still shows. Each run is a
 * jest of its own over test/testing/quiet/, set up as a bot project's.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

jest.setTimeout(400_000);

const root = join(__dirname, '..', '..');

/** Runs the quiet suite in a child jest; resolves to its exit code and its whole output. */
function runJest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(root, 'node_modules/jest/bin/jest.js'), '--config', join(__dirname, 'quiet/jest.config.js')],
      {
        cwd: root,
        env: { ...process.env, ...env, FORCE_COLOR: '0', CI: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // Jest that does not exit by itself (an open handle) is killed: the test then fails on `code`.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, output });
    });
  });
}

/** What jest prints for a passing run: the suite, its tests and the summary. */
const SUMMARY = [
  /^PASS /,
  /^\s+✓ /,
  /^Test Suites: /,
  /^Tests: /,
  /^Snapshots: /,
  /^Time: /,
  /^Ran all test suites\.$/,
];

describe('a passing bot test is quiet', () => {
  it('prints only jest’s summary, and exits without forceExit', async () => {
    const { code, output } = await runJest({});
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    expect(lines.filter((l) => !SUMMARY.some((p) => p.test(l)))).toEqual([]);
    expect(lines.some((l) => /^Tests: +1 passed, 1 total/.test(l))).toBe(true);
    expect(code).toBe(0);
  });

  it('still shows a real warning: a handler that failed', async () => {
    const { code, output } = await runJest({ AMSFLOW_QUIET_TEST_WARN: '1' });
    expect(output).toMatch(
      /\[temporal WARN\] Workflow failed \(workflowId=agent:bot[0-9a-f]+:msg:.*error=boom: the bot gave up on purpose/,
    );
    expect(output).not.toMatch(/Temporal Server 1\.16\.0|No workflows registered|Force exiting|did not exit/);
    expect(code).toBe(0);
  });
});
