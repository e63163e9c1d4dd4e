import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { lintProbePath } from './lint-probes';

/**
 * The lint rules on workflow code, checked by running the project's ESLint once (typed linting
 * needs real files in the project, and a program per run costs seconds) on throwaway files: the
 * rules that keep it deterministic, under workflows/; and the workflow-versions fence: Temporal's
 * `patched`/`deprecatePatch` are called in the engine's versions module only, inside workflows/
 * and outside it.
 */
const root = join(__dirname, '..', '..');
const planted: Record<string, { dir: string; code: string }> = {
  builtin: {
    dir: 'workflows',
    code: "import { readFileSync } from 'node:fs';\nexport const f = () => readFileSync('x');\n",
  },
  sideEffect: { dir: 'workflows', code: "import './types';\nexport const x = 1;\n" },
  valueImport: {
    dir: 'workflows',
    code: "import { createActivities } from '../activities';\nexport const a = createActivities;\n",
  },
  typeImport: {
    dir: 'workflows',
    code: "import type { Activities } from '../activities';\nexport type A = Activities;\n",
  },
  floating: {
    dir: 'workflows',
    code: "import { sleep } from '@temporalio/workflow';\nexport function f(): void {\n  sleep(1);\n}\n",
  },
  patchNamed: {
    dir: 'workflows',
    code: "import { patched } from '@temporalio/workflow';\nexport const f = (): boolean => patched('amsflow-x');\n",
  },
  patchRenamed: {
    dir: 'client',
    code: "import { deprecatePatch as d } from '@temporalio/workflow';\nexport const f = (): void => d('amsflow-x');\n",
  },
  patchNamespace: {
    dir: 'workflows/engine',
    code: "import * as wf from '@temporalio/workflow';\nexport const f = (): boolean => wf.patched('amsflow-x');\n",
  },
  patchAllowed: {
    dir: 'workflows',
    code: "import { isPatched } from './engine/versions';\nexport const f = isPatched;\n",
  },
};
const path = (name: string) => lintProbePath(planted[name].dir, `rules-${name}`);

describe('lint rules for workflow code', () => {
  const messages: Record<string, string> = {};
  let versionsModule = '';
  beforeAll(async () => {
    for (const [name, { code }] of Object.entries(planted)) writeFileSync(path(name), code);
    try {
      const eslint = join(root, 'node_modules', '.bin', 'eslint');
      const files = [...Object.keys(planted).map(path), join(root, 'workflows', 'engine', 'versions.ts')];
      const { stdout } = await promisify(execFile)(eslint, ['--format', 'json', ...files], {
        cwd: root,
      }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
      const results = JSON.parse(stdout) as {
        filePath: string;
        messages: { ruleId: string; message: string }[];
      }[];
      const text = (file: string) =>
        results
          .find((r) => r.filePath === file)!
          .messages.map((m) => `${m.ruleId}: ${m.message}`)
          .join('\n');
      for (const name of Object.keys(planted)) messages[name] = text(path(name));
      versionsModule = text(files.at(-1)!);
    } finally {
      for (const name of Object.keys(planted)) rmSync(path(name), { force: true });
    }
  }, 120_000);

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

  it('fails an import of patched or deprecatePatch outside the versions module, renamed or through a namespace', () => {
    expect(messages.patchNamed).toMatch(/amsflow\/patches-in-versions: `patched`/);
    expect(messages.patchRenamed).toMatch(/amsflow\/patches-in-versions: `deprecatePatch`/);
    expect(messages.patchNamespace).toMatch(/amsflow\/patches-in-versions: `patched`/);
  });

  it('lets the versions module call them, and others use its functions', () => {
    expect(versionsModule).toBe('');
    expect(messages.patchAllowed).toBe('');
  });
});
