/**
 * A bot's own activities module (`AMSFLOW_ACTIVITIES`), loaded for the workflow worker.
 *
 * A TypeScript module loads as the bot's TypeScript does, with no build step: the bot is bundled
 * by the SDK's webpack with swc; its activities run in the worker's own Node, so amsflow
 * transpiles them with the same swc (`@swc/core`, the one `@temporalio/worker` depends on) to
 * CommonJS as Node requires them. The hook is scoped: it compiles the `.ts` and `.cts`
 * files of the activities module's project (the folder of its nearest package.json), outside
 * `node_modules`, and leaves every other file to whatever loaded it before (ts-node in a clone of
 * amsflow compiles amsflow's own sources and examples, as it always did). Types are not checked
 * here (`npm run typecheck` and the tests do that). Each file keeps an inline source map: with
 * `NODE_OPTIONS=--enable-source-maps` stack traces name TypeScript lines.
 *
 * A module that cannot be used (missing, a syntax error, an import that fails, an exception while
 * it loads, no function exported) fails the start with {@link BotActivitiesError}: one line
 * naming the variable, the file and why.
 */
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { displayPath } from './bot-bundle';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

/** The variable that names the module. */
export const ACTIVITIES_VARIABLE = 'AMSFLOW_ACTIVITIES';

/** An activities module that cannot be loaded or exports no function. */
export class BotActivitiesError extends AmsflowError {
  readonly code = AmsflowErrorCodes.botActivities;
  constructor(
    /** The module, as named to the user (relative to the current directory when inside it). */
    readonly file: string,
    /** Why, in one line. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${ACTIVITIES_VARIABLE}=${file}: cannot load: ${reason}`, options);
  }
}

/** The extensions the hook compiles (`.tsx` is not: activities render no JSX). */
const TYPESCRIPT_EXTENSIONS = ['.ts', '.cts'] as const;

/** What amsflow uses of `@swc/core`. */
interface Swc {
  transformSync(code: string, options: Record<string, unknown>): { code: string };
}

/** The `@swc/core` of the `@temporalio/worker` this worker runs (not a dependency of amsflow's own). */
function loadSwc(): Swc {
  const fromWorker = createRequire(require.resolve('@temporalio/worker'));
  return fromWorker('@swc/core') as Swc;
}

/** The folders whose TypeScript files the hook compiles, and the hook's state. */
const hook: { scopes: Set<string>; swc?: Swc; installed: boolean } = { scopes: new Set(), installed: false };

/** amsflow's own folder (the one holding its package.json): its files are left to whoever loads them. */
const OWN_ROOT = [join(__dirname, '..'), join(__dirname, '..', '..')].find((dir) =>
  existsSync(join(dir, 'package.json')),
);

/** The project of a module: the folder of the nearest package.json above it, else its own folder. */
export function projectOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

/** Whether `file` is inside `dir` and not in a node_modules folder below it. */
function within(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return (
    rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.split(sep).includes('node_modules')
  );
}

/** CommonJS from the TypeScript file `filename` (swc: types removed, imports as `require`). */
export function transpile(source: string, filename: string): string {
  hook.swc ??= loadSwc();
  return hook.swc.transformSync(source, {
    filename,
    swcrc: false,
    configFile: false,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  }).code;
}

type Loader = (module: NodeJS.Module, filename: string) => void;
interface CompilableModule extends NodeJS.Module {
  _compile(code: string, filename: string): void;
}

/** Node's table of loaders by extension (what `require.extensions` shows). */
const loaders = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;

/**
 * Compiles the TypeScript files under `scope` when Node requires them, from now on. Other files go
 * to the loader their extension had (ts-node's, say), else to Node's own JavaScript loader.
 */
export function compileTypeScriptIn(scope: string): void {
  hook.scopes.add(scope);
  if (hook.installed) return;
  hook.installed = true;
  for (const extension of TYPESCRIPT_EXTENSIONS) {
    const previous: Loader | undefined = loaders[extension];
    loaders[extension] = (module, filename) => {
      const own = previous !== undefined && OWN_ROOT !== undefined && within(OWN_ROOT, filename);
      if (!own && [...hook.scopes].some((dir) => within(dir, filename))) {
        (module as CompilableModule)._compile(transpile(readFileSync(filename, 'utf8'), filename), filename);
      } else {
        (previous ?? loaders['.js'])(module, filename);
      }
    };
  }
}

/** swc's report of a syntax error (`  x <message>` then `,-[<file>:<line>:<column>]`) in one line. */
function swcProblem(message: string): string | undefined {
  const what = /^\s*x (.+)$/m.exec(message)?.[1];
  if (!what) return undefined;
  const where = /,-\[(.+):(\d+):\d+\]/.exec(message);
  return where ? `syntax error at ${displayPath(where[1])}:${where[2]}: ${what}` : `syntax error: ${what}`;
}

/** Why a module did not load, in one line. */
export function loadProblem(err: unknown, file: string): string {
  if (!(err instanceof Error)) return `it threw ${String(err)} while loading`;
  const code = (err as { code?: unknown }).code;
  const first = (text: string) => text.split('\n')[0].trim();
  const swc = swcProblem(err.message);
  if (swc) return swc;
  if (code === 'MODULE_NOT_FOUND' && first(err.message) === `Cannot find module '${file}'`) {
    return 'no such file';
  }
  if (code === 'MODULE_NOT_FOUND') {
    const from = (err as { requireStack?: string[] }).requireStack?.[0];
    return `${first(err.message)}${from ? ` (from ${displayPath(from)})` : ''}`;
  }
  // Node's own parser (a JavaScript module).
  if (err instanceof SyntaxError) return `${err.name}: ${first(err.message)}`;
  return `it threw while loading: ${err.name}: ${first(err.message)}`;
}

/**
 * The functions a bot's activities module exports, keyed by name. The module at `path` (resolved,
 * absolute) is required; a TypeScript one through the scoped swc hook
 * ({@link compileTypeScriptIn}). Throws {@link BotActivitiesError}.
 */
export async function loadBotActivities(
  path: string,
): Promise<Record<string, (...args: unknown[]) => unknown>> {
  const shown = displayPath(path);
  if (TYPESCRIPT_EXTENSIONS.some((extension) => path.endsWith(extension))) {
    try {
      compileTypeScriptIn(projectOf(path));
    } catch (err) {
      throw new BotActivitiesError(shown, `TypeScript cannot be compiled here: ${loadProblem(err, path)}`, {
        cause: err,
      });
    }
  }
  let loaded: Record<string, unknown>;
  try {
    // CommonJS here (tsconfig "module"): a require, through the hook above for TypeScript.
    loaded = (await import(path)) as Record<string, unknown>;
  } catch (err) {
    throw new BotActivitiesError(shown, loadProblem(err, path), { cause: err });
  }
  const functions = Object.entries(loaded ?? {}).filter(
    (entry): entry is [string, (...args: unknown[]) => unknown] => typeof entry[1] === 'function',
  );
  if (functions.length === 0) {
    const names = Object.keys(loaded ?? {});
    const has = names.length > 0 ? `it exports ${names.join(', ')}` : 'it exports nothing';
    throw new BotActivitiesError(shown, `no function exported (${has}); export each activity as a function`);
  }
  return Object.fromEntries(functions);
}
