/**
 * The type check and ESLint in one process, over one TypeScript program per project (`npm test`'s
 * and `npm run checks`' "types and lint"; scripts/checks.ts). Run apart, `tsc` and ESLint's typed
 * rules each build the same program and type-check it; here the rules read the types the check
 * computed (measured back to back on this repository: about 40 % less CPU than the two apart).
 *
 * What it checks is what `npm run typecheck` and `npm run lint`'s ESLint check: every file of each
 * project type-checks (`tsc --noEmit -p <project>`), and `eslint .` passes with the project's own
 * config, its typed rules reading these programs instead of building their own. The lint tests'
 * probes (test/lint/lint-probes.ts), planted in the tree while this runs beside them, are left out
 * of both. Exit 1 on any error, each printed with its file and line. ESLint loads its config with a
 * dynamic import, so this runs as a process of its own (not inside jest).
 */
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import * as ts from 'typescript';
import { LINT_PROBE_GLOB, isLintProbe } from '../test/lint/lint-probes';

/** The TypeScript projects, relative to the root: the code's, and the web chat's (plain JavaScript). */
export const PROJECTS = ['tsconfig.json', 'simulator/web/tsconfig.json'];

/** A project's program as `tsc -p` builds it, less the probes; with the config's own errors. */
function programOf(root: string, project: string): { program: ts.Program; configErrors: ts.Diagnostic[] } {
  const path = join(root, project);
  const read = ts.readConfigFile(path, (file) => ts.sys.readFile(file));
  if (read.error) return { program: ts.createProgram([], {}), configErrors: [read.error] };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(path), undefined, path);
  const program = ts.createProgram({
    rootNames: parsed.fileNames.filter((file) => !isLintProbe(file)),
    options: { ...parsed.options, noEmit: true },
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
  });
  return { program, configErrors: [] };
}

/** Type-checks and lints the projects under `root`; resolves with whether both passed. */
export async function typesAndLint(root: string, projects: string[] = PROJECTS): Promise<boolean> {
  const programs = projects.map((project) => programOf(root, project));
  const diagnostics = programs.flatMap(({ program, configErrors }) => [
    ...configErrors,
    ...ts.getPreEmitDiagnostics(program),
  ]);
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  if (diagnostics.length > 0) {
    console.error(ts.formatDiagnostics(diagnostics, host).trimEnd());
    console.error(`type check: ${diagnostics.length} error(s)`);
  }
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [
      { ignores: [LINT_PROBE_GLOB] },
      {
        languageOptions: {
          parserOptions: { projectService: false, programs: programs.map(({ program }) => program) },
        },
      },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  // Warnings are printed and pass, as `eslint .` has them.
  if (results.some((r) => r.messages.length > 0)) {
    const text = await (await eslint.loadFormatter('stylish')).format(results);
    console.error(text.trimEnd());
  }
  console.log(
    `type check: ${programs.map(({ program }) => program.getRootFileNames().length).join(' + ')} files` +
      ` (${projects.join(', ')}); eslint: ${results.length} files`,
  );
  return diagnostics.length === 0 && results.every((r) => r.errorCount === 0);
}

if (require.main === module) {
  // `types-and-lint.ts [root [project…]]`: this repository and its projects by default.
  const [root = join(__dirname, '..'), ...projects] = process.argv.slice(2);
  void typesAndLint(root, projects.length > 0 ? projects : PROJECTS).then(
    (passed) => {
      if (!passed) process.exitCode = 1;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
