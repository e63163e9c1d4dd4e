import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The size rule of eslint.config.mjs (issue 20): a non-test source file over 300 lines or a
 * function over 60 (blank lines and comments not counted) fails the lint, unless a disable comment
 * says why; test files are not held to it. Checked by running the project's ESLint on throwaway
 * files (typed linting needs real files in the project).
 */
const root = join(__dirname, '..', '..');
const statements = (n: number) => Array.from({ length: n }, (_, i) => `  total += ${i};`).join('\n');
const fn = (lines: number, before = '') =>
  `${before}export function f(): number {\n  let total = 0;\n${statements(lines - 4)}\n  return total;\n}\n`;
const consts = (n: number) =>
  Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join('\n') + '\n';
const fixtures: Record<string, { dir: string; code: string }> = {
  longFile: { dir: 'client', code: consts(301) },
  fullFile: { dir: 'client', code: consts(300) },
  longFunction: { dir: 'messaging', code: fn(61) },
  fullFunction: { dir: 'messaging', code: fn(60) },
  commentsDoNotCount: {
    dir: 'simulator',
    code: fn(60).replace('  return total;', '  // why\n\n  return total;'),
  },
  excused: {
    dir: 'worker',
    code: fn(61, '// eslint-disable-next-line max-lines-per-function -- a reason\n'),
  },
  testFile: { dir: 'test/lint', code: consts(301) + fn(61) },
};
const path = (name: string) => join(root, fixtures[name].dir, `__size-fixture-${name}__.ts`);

describe('the size rule', () => {
  const messages: Record<string, string> = {};
  beforeAll(async () => {
    for (const name of Object.keys(fixtures)) {
      mkdirSync(join(root, fixtures[name].dir), { recursive: true });
      writeFileSync(path(name), fixtures[name].code);
    }
    try {
      const eslint = join(root, 'node_modules', '.bin', 'eslint');
      const names = Object.keys(fixtures);
      const { stdout } = await promisify(execFile)(eslint, ['--format', 'json', ...names.map(path)], {
        cwd: root,
      }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
      const results = JSON.parse(stdout) as { filePath: string; messages: { ruleId: string }[] }[];
      for (const name of names) {
        const result = results.find((r) => r.filePath === path(name))!;
        messages[name] = result.messages.map((m) => m.ruleId).join(' ');
      }
    } finally {
      for (const name of Object.keys(fixtures)) rmSync(path(name), { force: true });
    }
  }, 180_000);

  it('fails a source file over 300 lines, not one of 300', () => {
    expect(messages.longFile).toBe('max-lines');
    expect(messages.fullFile).toBe('');
  });

  it('fails a function over 60 lines, not one of 60, and does not count comments or blank lines', () => {
    expect(messages.longFunction).toBe('max-lines-per-function');
    expect(messages.fullFunction).toBe('');
    expect(messages.commentsDoNotCount).toBe('');
  });

  it('lets a function stay longer with a disable comment that says why', () => {
    expect(messages.excused).toBe('');
  });

  it('does not hold tests to it', () => {
    expect(messages.testFile).toBe('');
  });
});
