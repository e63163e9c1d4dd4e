import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { lintProbePath } from './lint-probes';

/**
 * The lint rules that keep workflow code deterministic, checked by running the project's ESLint
 * on throwaway files under workflows/ (typed linting needs real files in the project).
 */
const root = join(__dirname, '..', '..');
const fixtures: Record<string, string> = {
  builtin: "import { readFileSync } from 'node:fs';\nexport const f = () => readFileSync('x');\n",
  sideEffect: "import './types';\nexport const x = 1;\n",
  valueImport: "import { createActivities } from '../activities';\nexport const a = createActivities;\n",
  typeImport: "import type { Activities } from '../activities';\nexport type A = Activities;\n",
  floating: "import { sleep } from '@temporalio/workflow';\nexport function f(): void {\n  sleep(1);\n}\n",
};
const path = (name: string) => lintProbePath('workflows', `rules-${name}`);

describe('lint rules for workflow code', () => {
  const messages: Record<string, string> = {};
  beforeAll(async () => {
    for (const [name, code] of Object.entries(fixtures)) writeFileSync(path(name), code);
    try {
      const eslint = join(root, 'node_modules', '.bin', 'eslint');
      const names = Object.keys(fixtures);
      const { stdout } = await promisify(execFile)(eslint, ['--format', 'json', ...names.map(path)], {
        cwd: root,
      }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
      const results = JSON.parse(stdout) as {
        filePath: string;
        messages: { ruleId: string; message: string }[];
      }[];
      for (const name of names) {
        const result = results.find((r) => r.filePath === path(name))!;
        messages[name] = result.messages.map((m) => `${m.ruleId}: ${m.message}`).join('\n');
      }
    } finally {
      for (const name of Object.keys(fixtures)) rmSync(path(name), { force: true });
    }
  }, 60_000);

  it('bans Node built-ins', () => {
    expect(messages.builtin).toMatch(/no-restricted-imports: .*Node built-ins/);
  });

  it('bans side-effecting imports', () => {
    expect(messages.sideEffect).toMatch(/Side-effecting imports/);
  });

  it('allows activities by type only', () => {
    expect(messages.valueImport).toMatch(/by type only/);
    expect(messages.typeImport).toBe('');
  });

  it('makes floating promises an error', () => {
    expect(messages.floating).toMatch(/no-floating-promises/);
  });
});
