/**
 * The suites' cache of ts-node output (ts-node-cache.js, preloaded into node children through
 * NODE_OPTIONS): a process reuses what an earlier one transpiled, an edited file is transpiled
 * afresh, stack traces still point into the TypeScript source, and the NODE_OPTIONS entry comes
 * and goes cleanly.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { withoutChildCaches, withChildCaches } from './child-caches-env';

const root = resolve(__dirname, '..', '..');
const artifacts = join(root, 'test-artifacts');

describe('the ts-node cache of the suites’ child processes', () => {
  let dir: string;
  let cacheDir: string;
  let script: string;

  beforeAll(() => {
    mkdirSync(artifacts, { recursive: true });
    dir = mkdtempSync(join(artifacts, 'ts-node-cache-'));
    cacheDir = join(dir, 'cache');
    script = join(dir, 'script.ts');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the script with ts-node as the suites' children do, with the cache preloaded. */
  function runScript(): { status: number | null; out: string } {
    const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', script], {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        AMSFLOW_TS_NODE_CACHE_DIR: cacheDir,
        NODE_OPTIONS: withChildCaches(withoutChildCaches(process.env.NODE_OPTIONS)),
      },
    });
    return { status: result.status, out: `${result.stdout}${result.stderr}` };
  }

  // Types only on the first lines: the JavaScript has the throw on another line than the source.
  const source = (word: string) =>
    `interface Said {\n  word: string;\n}\nconst said: Said = { word: '${word}' };\nconsole.log(said.word);\nif (said.word === 'throw') {\n  throw new Error('thrown');\n}\n`;

  it('transpiles once: the next process runs the cached output', () => {
    writeFileSync(script, source('first'));
    expect(runScript()).toEqual({ status: 0, out: 'first\n' });
    const entries = readdirSync(cacheDir);
    expect(entries).toHaveLength(1);
    // The next process takes the entry as it is (here made to say something else).
    const entry = join(cacheDir, entries[0]);
    writeFileSync(entry, readFileSync(entry, 'utf8').replace("word: 'first'", "word: 'cached'"));
    expect(runScript()).toEqual({ status: 0, out: 'cached\n' });
  });

  it('transpiles an edited file afresh', () => {
    writeFileSync(script, source('second'));
    expect(runScript()).toEqual({ status: 0, out: 'second\n' });
  });

  it('keeps stack traces on the TypeScript lines, from the cache too', () => {
    writeFileSync(script, source('throw'));
    for (let run = 0; run < 2; run++) {
      const { status, out } = runScript();
      expect(status).toBe(1);
      expect(out).toContain(`${script}:7:9`);
    }
  });

  it('adds its NODE_OPTIONS entry once and takes it out again, keeping the others', () => {
    const added = withChildCaches('--max-old-space-size=512');
    expect(added).toMatch(
      /^--max-old-space-size=512 --require=".*ts-node-cache\.js" --require=".*bot-bundle-preload\.js"$/,
    );
    expect(withChildCaches(added)).toBe(added);
    expect(withoutChildCaches(added)).toBe('--max-old-space-size=512');
    expect(withoutChildCaches(withChildCaches(undefined))).toBeUndefined();
  });
});
