/**
 * Our source files' import graph, read with the TypeScript compiler API: every static import
 * and re-export, type-only ones included (a type cycle is a cycle too), `import()` and
 * `require()` of a literal, resolved as tsc resolves them.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';
import { isLintProbe } from './lint-probes';

export const ROOT = join(__dirname, '..', '..');

/** Folders of non-test source: the package's code, its examples and the tools around it. */
export const SOURCE_FOLDERS = [
  'core',
  'messaging',
  'protocol',
  'activities',
  'workflows',
  'worker',
  'client',
  'testing',
  'simulator',
  'codec',
  'tools',
  'examples',
  'scripts',
  'bench',
  'chaos',
];

/** Every .ts file (not .d.ts, not a test) under `folder`, relative to the root. */
export function tsFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (
        entry.name.endsWith('.ts') &&
        !entry.name.endsWith('.d.ts') &&
        !entry.name.endsWith('.test.ts') &&
        !isLintProbe(entry.name)
      ) {
        out.push(path);
      }
    }
  };
  walk(folder);
  return out.sort();
}

/** The module specifiers `source` imports. */
export function specifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) found.push(literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** file -> the files of ours it imports (relative paths; packages left out). */
export function importGraph(files: string[]): Map<string, string[]> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const abs = join(ROOT, file);
    const source = ts.createSourceFile(abs, ts.sys.readFile(abs) ?? '', ts.ScriptTarget.Latest, true);
    const targets = new Set<string>();
    for (const spec of specifiers(source)) {
      const resolved = ts.resolveModuleName(spec, abs, options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport || resolved.resolvedFileName.endsWith('.d.ts'))
        continue;
      targets.add(relative(ROOT, resolved.resolvedFileName));
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}
