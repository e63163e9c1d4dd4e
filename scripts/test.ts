/**
 * `npm test`: the checks (scripts/checks.ts) and the main tier of jest suites at once, not one
 * after the other. The tests do not wait on the checks (ts-jest transpiles without type checking),
 * and on 2 cores the two together take about the time of the tests alone: each leaves CPU idle
 * part of the time (ESLint's and the type check's single threads; suites waiting on their servers).
 * Jest prints as it goes; each check's output is printed whole once it ends (a type error shows
 * while the tests still run). The run fails (exit 1) if the tests or any check failed, and the
 * last line names what failed. Arguments go to jest (`npm test -- test/core`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CHECKS, runChecks, type Check } from './checks';

const ROOT = join(__dirname, '..');

/** What to run: the checks, and the tests' command with its arguments and environment. */
export interface TestRun {
  checks: Check[];
  tests: { command: string; args: string[]; env?: NodeJS.ProcessEnv };
}

/** Runs the tests (output inherited) until they end; resolves with whether they passed. */
function runTests({ command, args, env }: TestRun['tests']): Promise<boolean> {
  const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return new Promise((done) => {
    child.once('error', (err) => {
      console.error(`the tests could not run ${command}: ${err.message}`);
      done(false);
    });
    child.once('exit', (code) => done(code === 0));
  });
}

/** Runs the checks and the tests at once; resolves with what failed (`[]` when all passed). */
export async function runTestsAndChecks(run: TestRun): Promise<string[]> {
  const [failedChecks, testsPassed] = await Promise.all([runChecks(run.checks), runTests(run.tests)]);
  return [...(testsPassed ? [] : ['tests']), ...failedChecks];
}

if (require.main === module) {
  void runTestsAndChecks({
    checks: CHECKS,
    tests: {
      command: join(ROOT, 'node_modules', '.bin', 'jest'),
      args: process.argv.slice(2),
      env: { AMSFLOW_TEST_TIER: 'main' },
    },
  }).then((failed) => {
    if (failed.length > 0) {
      console.error(`npm test failed: ${failed.join(', ')}`);
      process.exitCode = 1;
    } else console.log('npm test passed: the tests and the checks');
  });
}
