/**
 * The checks' type check and ESLint in one process (scripts/types-and-lint.ts), run as the checks
 * run it (a process: ESLint loads its config with a dynamic import) on a small project of its own
 * (its tsconfig and ESLint config, inside the repository so that ESLint's plugins resolve): a type
 * error and a lint error each fail it, named with their file; ESLint's typed rules see the types (a
 * floating promise is found through a function's declared type); the lint tests' probes are left
 * out of both.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(60_000);

const root = join(__dirname, '..', '..');

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', lib: ['ES2022'], module: 'commonjs', strict: true, types: [] },
  include: ['*.ts'],
};
const ESLINT_CONFIG = `import tseslint from 'typescript-eslint';
export default tseslint.config({ ignores: ['*.mjs'] }, ...tseslint.configs.recommendedTypeChecked, {
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
});
`;
const CLEAN = 'export function later(): Promise<number> {\n  return Promise.resolve(1);\n}\n';
// A type error and a floating promise: what each half would find, were it not a probe.
const PROBE = "import { later } from './clean';\nexport const n: number = 'x';\nlater();\n";

/** The script on the project in `dir` (its `projects`): its exit status and what it printed. */
function typesAndLint(dir: string, projects: string[] = ['tsconfig.json']) {
  const run = spawnSync(
    join(root, 'node_modules', '.bin', 'ts-node'),
    ['--transpile-only', join(root, 'scripts', 'types-and-lint.ts'), dir, ...projects],
    { cwd: root, encoding: 'utf8', timeout: 50_000 },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('types-and-lint', () => {
  let dir: string;
  beforeEach(() => {
    mkdirSync(join(root, 'test-artifacts'), { recursive: true });
    dir = mkdtempSync(join(root, 'test-artifacts', 'types-and-lint-'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(dir, 'eslint.config.mjs'), ESLINT_CONFIG);
    writeFileSync(join(dir, 'clean.ts'), CLEAN);
    writeFileSync(join(dir, '__lint-probe-planted__.ts'), PROBE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a clean project, leaving out a planted probe', () => {
    const { status, output } = typesAndLint(dir);
    expect(output).toMatch(/type check: 1 files \(tsconfig\.json\); eslint: 1 files/);
    expect(status).toBe(0);
  });

  it('fails on a type error and on a typed rule, naming the file of each', () => {
    writeFileSync(join(dir, 'typed.ts'), "export const n: number = 'x';\n");
    writeFileSync(join(dir, 'floating.ts'), "import { later } from './clean';\nlater();\n");
    const { status, output } = typesAndLint(dir);
    expect(status).toBe(1);
    expect(output).toMatch(/typed\.ts\(1,14\): error TS2322/);
    expect(output).toMatch(/floating\.ts\n\s+2:1\s+error .*@typescript-eslint\/no-floating-promises/);
    expect(output).not.toMatch(/__lint-probe/);
  });

  it('fails on a project whose tsconfig is missing, naming it', () => {
    const { status, output } = typesAndLint(dir, ['missing.json']);
    expect(status).toBe(1);
    expect(output).toMatch(/missing\.json/);
  });
});
