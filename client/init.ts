/**
 * `amsflow init <dir>`: a bot project of its own. It depends on the amsflow that ran the command:
 * its registry version when that amsflow came from the registry; a copy of its tarball in
 * `vendor/` when it was installed from one; a tarball packed from the clone (`npm pack`) when it
 * runs from a clone. Either way `npm install` gives a built amsflow: no build step in the project.
 * Beside the bot and its test it writes the way to production: the worker's image (`Dockerfile`,
 * `.dockerignore`) and a compose file running it against the Temporal a profile names
 * (`compose.yaml`, `.env.example`, `temporal/temporal.toml`); client/init-templates.ts has them.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import {
  BOT,
  BOT_TEST,
  DOCKERIGNORE,
  GITIGNORE,
  GUIDES,
  TEMPORAL_TOML,
  TSCONFIG,
  compose,
  dockerfile,
  envExample,
  guideInProject,
  readme,
} from './init-templates';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

/** A project that cannot be made where asked; nothing was written. */
export class InitError extends AmsflowError {
  readonly code = AmsflowErrorCodes.init;
  constructor(message: string) {
    super(message);
  }
}

/** Where the running amsflow came from. */
export type AmsflowSource =
  { kind: 'registry'; version: string } | { kind: 'tarball'; file: string } | { kind: 'clone'; root: string };

/** The package folder of the running amsflow (the one holding its package.json). */
export const PACKAGE_ROOT = [resolve(__dirname, '..'), resolve(__dirname, '..', '..')].find((dir) =>
  existsSync(join(dir, 'package.json')),
)!;

interface Manifest {
  name: string;
  version: string;
  engines?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/**
 * Where the amsflow at `root` came from. Outside any node_modules: a clone. Inside one: what
 * npm recorded for it in that project's lockfile (`node_modules/.package-lock.json`, also
 * written by `npx`): a `file:` tarball, else the registry.
 */
export function amsflowSource(root: string, version: string): AmsflowSource {
  const parts = root.split(sep);
  const modules = parts.lastIndexOf('node_modules');
  if (modules < 0) return { kind: 'clone', root };
  const project = parts.slice(0, modules).join(sep) || sep;
  const key = relative(project, root).split(sep).join('/');
  for (const lock of [
    join(project, 'node_modules', '.package-lock.json'),
    join(project, 'package-lock.json'),
  ]) {
    if (!existsSync(lock)) continue;
    const entry = readJson<{ packages?: Record<string, { resolved?: string }> }>(lock).packages?.[key];
    const resolved = entry?.resolved;
    if (!resolved?.startsWith('file:')) continue;
    const file = resolve(project, resolved.slice('file:'.length));
    if (existsSync(file) && statSync(file).isFile()) return { kind: 'tarball', file };
    if (existsSync(file)) return { kind: 'clone', root: file };
  }
  return { kind: 'registry', version };
}

/** npm and node children as if run by hand: without the npm_* variables of an enclosing npm run. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
}

/** The dependency spec of amsflow in the new project; copies or packs a tarball into `vendor/`. */
function amsflowSpec(source: AmsflowSource, project: string, log: (line: string) => void): string {
  if (source.kind === 'registry') return source.version;
  const vendor = join(project, 'vendor');
  mkdirSync(vendor, { recursive: true });
  if (source.kind === 'tarball') {
    copyFileSync(source.file, join(vendor, basename(source.file)));
    return `file:vendor/${basename(source.file)}`;
  }
  log(`amsflow init: npm pack in ${source.root} (it builds amsflow first)`);
  execFileSync('npm', ['pack', '--silent', '--pack-destination', vendor], {
    cwd: source.root,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const packed = readdirSync(vendor).filter((f) => f.endsWith('.tgz'));
  if (packed.length !== 1) throw new InitError(`npm pack left ${packed.length} tarballs in ${vendor}`);
  return `file:vendor/${packed[0]}`;
}

/** A valid npm package name from a folder name. */
export function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name.slice(0, 214) || 'my-bot';
}

/** The project's package.json: amsflow, and the test tools in the versions amsflow uses itself. */
export function projectManifest(name: string, spec: string, own: Manifest): string {
  const dev = own.devDependencies ?? {};
  const pick = (names: string[]) => Object.fromEntries(names.map((n) => [n, dev[n] ?? '*']));
  return `${JSON.stringify(
    {
      name,
      version: '0.1.0',
      private: true,
      engines: own.engines,
      scripts: {
        postinstall: 'amsflow setup',
        start: 'exec amsflow start bot.ts',
        test: 'jest',
        typecheck: 'tsc -p .',
        // Before a rollout (in CI): the cluster's recent histories replayed against this code.
        replay: 'amsflow replay --workflows bot.ts',
      },
      dependencies: { [own.name]: spec },
      devDependencies: pick([
        '@temporalio/testing',
        '@types/jest',
        '@types/node',
        'jest',
        'ts-jest',
        'typescript',
      ]),
      jest: { preset: own.name },
      // amsflow's own pins of its dependencies' dependencies (npm applies only the project's).
      ...(own.overrides ? { overrides: own.overrides } : {}),
      // npm's review of install scripts: amsflow's own choices; its postinstall does nothing installed.
      allowScripts: { ...own.allowScripts, [own.name]: false },
    },
    null,
    2,
  )}\n`;
}

export interface InitOptions {
  /** Where the running amsflow came from; default: found out ({@link amsflowSource}). */
  source?: AmsflowSource;
  log?: (line: string) => void;
}

/** Makes the project in `dir` (which must not exist, or be empty); returns its absolute path. */
export function initProject(dir: string, options: InitOptions = {}): string {
  const log = options.log ?? ((line: string) => console.log(line));
  const project = resolve(dir);
  if (existsSync(project) && (!statSync(project).isDirectory() || readdirSync(project).length > 0)) {
    throw new InitError(`${dir} exists and is not an empty folder: choose a new one`);
  }
  const own = readJson<Manifest>(join(PACKAGE_ROOT, 'package.json'));
  const source = options.source ?? amsflowSource(PACKAGE_ROOT, own.version);
  mkdirSync(project, { recursive: true });
  const spec = amsflowSpec(source, project, log);
  const name = packageName(project);
  const files: Record<string, string> = {
    'package.json': projectManifest(name, spec, own),
    'bot.ts': BOT,
    'bot.test.ts': BOT_TEST,
    'tsconfig.json': TSCONFIG,
    '.gitignore': GITIGNORE,
    'README.md': readme(name, spec),
    // To production (README.md, "To production"): the worker's image and its compose file.
    Dockerfile: dockerfile(name, spec.startsWith('file:vendor/')),
    '.dockerignore': DOCKERIGNORE,
    'compose.yaml': compose(name),
    '.env.example': envExample(name),
    'temporal/temporal.toml': TEMPORAL_TOML,
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), content);
  }
  log(`amsflow init: made ${name} in ${project} (amsflow ${spec})`);
  log(`next:\n  cd ${relative(process.cwd(), project) || '.'}\n  npm install && npm start\n  npm test`);
  log(`guides (once installed):\n${GUIDES.map((g) => `  ${guideInProject(g.path)}: ${g.what}`).join('\n')}`);
  log('to production: README.md, "To production" (Dockerfile, compose.yaml)');
  return project;
}
