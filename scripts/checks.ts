/**
 * `npm run checks` (and, beside the tests, `npm test`: scripts/test.ts): the type check with ESLint,
 * and Prettier, run at once instead of one after the other (each is one process that leaves a core
 * idle part of the time). Each check's output is printed whole, under its name, once it ends; the
 * run fails (exit 1) if any check failed, naming them. `npm run typecheck` and `npm run lint` still
 * run `tsc`, ESLint and Prettier alone.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** A check: its name, its command and the command's arguments (run in the project's root). */
export type Check = [name: string, command: string, args: string[]];

/**
 * The checks: what package.json's `typecheck` and `lint` check, the type check and ESLint in one
 * process over one program per project (scripts/types-and-lint.ts: they share the type checking
 * that each would do apart), Prettier in its own.
 */
export const CHECKS: Check[] = [
  ['types and lint', bin('ts-node'), ['--transpile-only', join(ROOT, 'scripts', 'types-and-lint.ts')]],
  ['prettier', bin('prettier'), ['--check', '.']],
];

/** Runs one check; resolves with whether it passed (its output printed once it has ended). */
function run([name, command, args]: Check): Promise<boolean> {
  const started = Date.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  let couldNotRun = false;
  return new Promise((done) => {
    child.once('error', (err) => {
      couldNotRun = true;
      console.error(`${name}: could not run ${command}: ${err.message}`);
      done(false);
    });
    child.once('close', (code, signal) => {
      if (couldNotRun) return;
      const passed = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString().trimEnd();
      const how = passed ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
      (passed ? console.log : console.error)(`> ${name} ${how} in ${seconds} s${text ? `\n${text}` : ''}`);
      done(passed);
    });
  });
}

/** Runs `checks` at once; resolves with the names of those that failed, in their order. */
export async function runChecks(checks: Check[]): Promise<string[]> {
  const results = await Promise.all(checks.map(run));
  return checks.filter((_, i) => !results[i]).map(([name]) => name);
}

if (require.main === module) {
  void runChecks(CHECKS).then((failed) => {
    if (failed.length > 0) {
      console.error(`checks failed: ${failed.join(', ')}`);
      process.exitCode = 1;
    }
  });
}
