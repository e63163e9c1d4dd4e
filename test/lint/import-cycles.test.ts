/**
 * No import cycle among our source files: the graph of every static import, re-export, `import()`
 * and `require()`, type-only imports included (the old workflows/types.ts <-> engine parts was a
 * type cycle), resolved as tsc resolves them.
 */
import { cycles, importGraph, SOURCE_FOLDERS, tsFiles } from './import-graph';

describe('the import graph', () => {
  const files = ['index.ts', ...SOURCE_FOLDERS.flatMap(tsFiles)];

  it('has no cycle', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(cycles(importGraph(files))).toEqual([]);
  });

  it('finds a cycle where there is one (two files, and a file importing itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });

  it('reads every kind of import, type-only ones too', () => {
    const graph = importGraph(['workflows/engine/runtime.ts', 'client/cli/project-commands.ts']);
    expect(graph.get('workflows/engine/runtime.ts')).toEqual(
      expect.arrayContaining(['protocol/agent.ts', 'workflows/engine/router.ts']),
    );
    // `amsflow start` loads the worker with import(): in the graph too.
    expect(graph.get('client/cli/project-commands.ts')).toContain('worker/main.ts');
  });
});
