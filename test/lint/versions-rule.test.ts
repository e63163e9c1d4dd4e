import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { lintProbePath } from './lint-probes';

/**
 * The workflow-versions fence: Temporal's `patched`/`deprecatePatch` are called in the engine's
 * versions module only. Checked by running the project's ESLint on planted files (typed linting
 * needs real files in the project), inside workflows/ and outside it.
 */
const root = join(__dirname, '..', '..');
const planted: Record<string, { dir: string; code: string }> = {
  named: {
    dir: 'workflows',
    code: "import { patched } from '@temporalio/workflow';\nexport const f = (): boolean => patched('amsflow-x');\n",
  },
  renamed: {
    dir: 'client',
    code: "import { deprecatePatch as d } from '@temporalio/workflow';\nexport const f = (): void => d('amsflow-x');\n",
  },
  namespace: {
    dir: 'workflows/engine',
    code: "import * as wf from '@temporalio/workflow';\nexport const f = (): boolean => wf.patched('amsflow-x');\n",
  },
  allowed: {
    dir: 'workflows',
    code: "import { isPatched } from './engine/versions';\nexport const f = isPatched;\n",
  },
};
const path = (name: string) => lintProbePath(planted[name].dir, `versions-${name}`);

describe('lint rule: patch calls only in the versions module', () => {
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

  it('fails an import of patched or deprecatePatch anywhere else, renamed or through a namespace', () => {
    expect(messages.named).toMatch(/amsflow\/patches-in-versions: `patched`/);
    expect(messages.renamed).toMatch(/amsflow\/patches-in-versions: `deprecatePatch`/);
    expect(messages.namespace).toMatch(/amsflow\/patches-in-versions: `patched`/);
  });

  it('lets the versions module call them, and others use its functions', () => {
    expect(versionsModule).toBe('');
    expect(messages.allowed).toBe('');
  });
});
