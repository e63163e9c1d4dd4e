/**
 * Every module README lists every .ts file of its folder (subfolders included, unless one has a
 * README of its own), and no file that does not exist: the rows of its tables whose first cell
 * names a `.ts` file. The root README's layout table names every top-level folder with code.
 * docs/ARCHITECTURE.md's table names the same folders.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isLintProbe } from '../lint/lint-probes';

const ROOT = join(__dirname, '..', '..');
const MODULES = ['core', 'messaging', 'protocol', 'workflows', 'testing', 'codec', 'tools'];

/** The `.ts` files under `folder` that its README answers for (not tests, not under a README of their own). */
function ownFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!existsSync(join(ROOT, path, 'README.md'))) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !isLintProbe(entry.name)) {
        out.push(relative(join(ROOT, folder), join(ROOT, path)));
      }
    }
  };
  walk(folder);
  return out.sort();
}

/** The backticked names in the first cell of each table row of `markdown`, ending in `suffix`. */
function listed(markdown: string, suffix: string): string[] {
  const names: string[] = [];
  for (const line of markdown.split('\n')) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const m of first.matchAll(/`([^`]+)`/g)) if (m[1].endsWith(suffix)) names.push(m[1]);
  }
  return [...new Set(names)].sort();
}

/** Top-level folders holding .ts files. */
function codeFolders(): string[] {
  const hasTs = (dir: string): boolean =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).some((e) =>
      e.isDirectory() ? e.name !== 'node_modules' && hasTs(join(dir, e.name)) : e.name.endsWith('.ts'),
    );
  return readdirSync(ROOT, { withFileTypes: true })
    .filter(
      (e) =>
        e.isDirectory() &&
        !e.name.startsWith('.') &&
        !['node_modules', 'dist', 'test-artifacts'].includes(e.name),
    )
    .filter((e) => hasTs(e.name))
    .map((e) => `${e.name}/`)
    .sort();
}

describe('module READMEs', () => {
  it.each(MODULES)('%s/README.md lists every file of its folder, and only those', (folder) => {
    const readme = readFileSync(join(ROOT, folder, 'README.md'), 'utf8');
    expect(listed(readme, '.ts')).toEqual(ownFiles(folder));
  });

  it('README.md and docs/ARCHITECTURE.md name every top-level folder with code, and only those', () => {
    const folders = codeFolders();
    expect(folders).toEqual(expect.arrayContaining(['core/', 'codec/', 'tools/', 'workflows/']));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'));
    expect(listed(layout, '/')).toEqual(folders);
    const architecture = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
    const table = architecture.slice(architecture.indexOf('## Layout'), architecture.indexOf('## The rooms'));
    expect(listed(table, '/')).toEqual(folders);
  });

  it('reads a listing as meant: first cells only, several names in one cell', () => {
    const md = '| `a.ts`, `b.ts` | see `c.ts` |\n| --- | --- |\nText `d.ts`.\n| `x/` | y |';
    expect(listed(md, '.ts')).toEqual(['a.ts', 'b.ts']);
    expect(listed(md, '/')).toEqual(['x/']);
  });
});
