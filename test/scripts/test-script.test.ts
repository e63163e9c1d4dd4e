/**
 * `npm test` (scripts/test.ts): the checks and the tests run at once, and the run fails, naming
 * what failed, if the tests or any check failed; the tests' own environment reaches them. Real
 * processes (node itself as the checks and the tests).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTestsAndChecks } from '../../scripts/test';

const node = (code: string): [string, string[]] => [process.execPath, ['-e', code]];

describe('runTestsAndChecks', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'amsflow-test-script-'));
    const quiet = () => undefined;
    jest.spyOn(console, 'log').mockImplementation(quiet);
    jest.spyOn(console, 'error').mockImplementation(quiet);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the tests with their environment while the checks run, and passes when all pass', async () => {
    const marks = join(dir, 'marks');
    // The check waits until the tests have started: it can only end if both run at once.
    const check = node(
      `const fs = require('fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(marks)})) clearInterval(t); }, 20);`,
    );
    const [command, args] = node(
      `require('fs').writeFileSync(${JSON.stringify(marks)}, process.env.AMSFLOW_TEST_TIER)`,
    );
    const failed = await runTestsAndChecks({
      checks: [['waits for the tests', ...check]],
      tests: { command, args, env: { AMSFLOW_TEST_TIER: 'main' } },
    });
    expect(failed).toEqual([]);
    expect(readFileSync(marks, 'utf8')).toBe('main');
  });

  it('fails naming the tests when they fail, and each check that failed', async () => {
    const [command, args] = node('process.exit(1)');
    expect(
      await runTestsAndChecks({
        checks: [
          ['fine', ...node('')],
          ['broken', ...node('process.exit(2)')],
        ],
        tests: { command, args },
      }),
    ).toEqual(['tests', 'broken']);
  });

  it('fails naming the tests when their command cannot start', async () => {
    expect(
      await runTestsAndChecks({
        checks: [['fine', ...node('')]],
        tests: { command: '/nonexistent/amsflow-jest', args: [] },
      }),
    ).toEqual(['tests']);
  });
});
