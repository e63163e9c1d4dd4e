/**
 * The suites' workflow-bundle cache (bundle-cache.ts through `bundle()`): a bundle of unchanged
 * inputs is reused, and an edited file or a new file that resolution would now pick bundles
 * afresh. The module lives under test-artifacts/ so that it resolves @temporalio/workflow.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { withWebpackCache } from './bundle-cache';
import { bundle, quietLogger } from './temporal';

const artifacts = resolve(__dirname, '..', '..', 'test-artifacts');

describe('the workflow-bundle cache', () => {
  let dir: string;
  let cacheDir: string;
  const saved = process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR;

  beforeAll(() => {
    mkdirSync(artifacts, { recursive: true });
    dir = mkdtempSync(join(artifacts, 'bundle-cache-'));
    // Away from the module's folders, whose listings webpack watches; webpack's own cache goes
    // beside it (withWebpackCache), in the same temp folder.
    cacheDir = join(mkdtempSync(join(tmpdir(), 'amsflow-bundle-cache-')), 'bundles');
    mkdirSync(cacheDir);
    process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR = cacheDir;
    writeFileSync(
      join(dir, 'workflows.ts'),
      "import { marker } from './helper';\nexport async function wf() { return marker; }\n",
    );
    writeFileSync(join(dir, 'helper.js'), "exports.marker = 'marker-js-1';\n");
  });

  afterAll(() => {
    if (saved === undefined) delete process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR;
    else process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(cacheDir, '..'), { recursive: true, force: true });
  });

  /** The markers a bundle holds (not its 3 MB of code in a failure message). */
  const says = async () => {
    const { code } = await bundle(join(dir, 'workflows.ts'));
    return code === 'from the cache' ? [code] : [...new Set(code.match(/marker-(js-\d|ts)/g))];
  };

  /** Replaces the code of the one cache entry, to see whether the next bundle comes from it. */
  function tamperEntry(): void {
    const [entry] = readdirSync(cacheDir);
    const file = join(cacheDir, entry);
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), code: 'from the cache' }),
    );
  }

  it('reuses the bundle while nothing it was made from changed', async () => {
    expect(await says()).toEqual(['marker-js-1']);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    tamperEntry();
    expect(await says()).toEqual(['from the cache']);
  }, 60_000);

  it('reuses it when another suite makes a folder beside the module (test-artifacts/ is an ancestor)', async () => {
    const sibling = mkdtempSync(join(artifacts, 'bundle-cache-sibling-'));
    try {
      expect(await says()).toEqual(['from the cache']);
    } finally {
      rmSync(sibling, { recursive: true, force: true });
    }
  }, 60_000);

  it('bundles afresh when an imported file changed', async () => {
    writeFileSync(join(dir, 'helper.js'), "exports.marker = 'marker-js-2';\n");
    expect(await says()).toEqual(['marker-js-2']);
  }, 60_000);

  it('bundles afresh when a new file takes over an import (helper.ts before helper.js)', async () => {
    tamperEntry();
    writeFileSync(join(dir, 'helper.ts'), "export const marker = 'marker-ts';\n");
    expect(await says()).toEqual(['marker-ts']);
  }, 60_000);

  it("gives webpack's cache to one bundle at a time: one made meanwhile goes without, the next has it", async () => {
    const withCache: boolean[] = [];
    let holdFirst!: () => void;
    const firstHeld = new Promise<void>((done) => (holdFirst = done));
    const make = (hold?: Promise<void>) =>
      bundleWorkflowCode({
        workflowsPath: join(dir, 'workflows.ts'),
        logger: quietLogger,
        webpackConfigHook: (config) => {
          const hooked = withWebpackCache(config);
          withCache.push('cache' in hooked);
          if (!hold) return hooked;
          // The first bundle's compile waits (webpack's own hook) until the second was configured.
          const wait = {
            apply: (c: { hooks: { run: { tapPromise(n: string, f: () => Promise<void>): void } } }) =>
              c.hooks.run.tapPromise('hold', () => hold),
          };
          return { ...hooked, plugins: [...(hooked.plugins ?? []), wait] };
        },
      });
    const first = make(firstHeld);
    while (withCache.length < 1) await new Promise((r) => setImmediate(r));
    const second = make();
    while (withCache.length < 2) await new Promise((r) => setImmediate(r));
    holdFirst();
    const bundles = await Promise.all([first, second]);
    expect(withCache).toEqual([true, false]);
    for (const { code } of bundles) expect(code).toContain('marker-ts');
    await make();
    expect(withCache).toEqual([true, false, true]);
    expect(readdirSync(join(cacheDir, '..'))).toContain(`webpack-${process.pid}`);
  }, 60_000);
});
