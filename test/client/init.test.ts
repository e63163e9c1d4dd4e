/**
 * `amsflow init`'s parts without npm: where the running amsflow came from (a clone, a tarball, the
 * registry, as npm recorded it), the project's name and package.json, the files written, the
 * refusal of a folder in use, and the way to production it writes (no Docker engine here: the
 * Dockerfile, the compose file, .dockerignore and the Temporal profile are read as Docker and the
 * worker would read them). The whole command, from the packed package to a green `npm test`
 * in the new project, is test/package/init.test.ts.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { load as parseYaml } from 'js-yaml';
import { amsflowSource, initProject, InitError, packageName, projectManifest } from '../../client/init';
import { GUIDES, NODE_IMAGE } from '../../client/init-templates';
import { toolsDirFor } from '../../tools/temporal-binaries';
import { loadTemporalProfile } from '../../tools/temporal-profile';

const dir = mkdtempSync(join(tmpdir(), 'amsflow-init-unit-'));

/** A project `name` in `dir` with amsflow installed, its lock entry `resolved`. */
function installedIn(name: string, resolved: string | undefined): string {
  const project = join(dir, name);
  const root = join(project, 'node_modules', 'amsflow');
  mkdirSync(root, { recursive: true });
  const packages = resolved ? { 'node_modules/amsflow': { version: '0.1.0', resolved } } : {};
  writeFileSync(join(project, 'node_modules', '.package-lock.json'), JSON.stringify({ packages }));
  return root;
}

describe('where the running amsflow came from', () => {
  it('outside any node_modules: a clone', () => {
    expect(amsflowSource('/home/me/amsflow', '0.1.0')).toEqual({ kind: 'clone', root: '/home/me/amsflow' });
  });

  it('installed from a tarball: that file, relative to the installing project', () => {
    writeFileSync(join(dir, 'amsflow-0.1.0.tgz'), 'not really a tarball');
    const root = installedIn('from-tarball', 'file:../amsflow-0.1.0.tgz');
    expect(amsflowSource(root, '0.1.0')).toEqual({ kind: 'tarball', file: join(dir, 'amsflow-0.1.0.tgz') });
  });

  it('installed from the registry (or with nothing recorded, as npx of a published version): its version', () => {
    const root = installedIn('from-registry', 'https://registry.npmjs.org/amsflow/-/amsflow-0.1.0.tgz');
    expect(amsflowSource(root, '0.1.0')).toEqual({ kind: 'registry', version: '0.1.0' });
    expect(amsflowSource(installedIn('no-record', undefined), '0.2.0')).toEqual({
      kind: 'registry',
      version: '0.2.0',
    });
  });
});

describe('the project', () => {
  it('is named after its folder, as npm accepts names', () => {
    expect(packageName('/x/My Bot!')).toBe('my-bot');
    expect(packageName('/x/.hidden')).toBe('hidden');
    expect(packageName('/x/bot_2')).toBe('bot_2');
  });

  it("depends on amsflow and on the test tools in amsflow's own versions", () => {
    const pkg = JSON.parse(
      projectManifest('my-bot', '0.1.0', {
        name: 'amsflow',
        version: '0.1.0',
        devDependencies: { jest: '29.7.0', 'ts-jest': '29.4.15', typescript: '5.9.3', eslint: '9' },
        allowScripts: { '@swc/core': true },
      }),
    );
    expect(pkg.dependencies).toEqual({ amsflow: '0.1.0' });
    expect(pkg.devDependencies).toMatchObject({ jest: '29.7.0', 'ts-jest': '29.4.15', typescript: '5.9.3' });
    expect(pkg.devDependencies.eslint).toBeUndefined();
    expect(pkg.scripts).toMatchObject({
      postinstall: 'amsflow setup',
      start: 'exec amsflow start bot.ts',
      test: 'jest',
      replay: 'amsflow replay --workflows bot.ts',
    });
    expect(pkg.jest).toEqual({ preset: 'amsflow' });
    expect(pkg.allowScripts).toEqual({ '@swc/core': true, amsflow: false });
  });

  it('is written from a tarball: vendor/ holds its copy; a folder in use is refused', () => {
    const tarball = join(dir, 'amsflow-9.9.9.tgz');
    writeFileSync(tarball, 'bytes');
    const lines: string[] = [];
    const project = initProject(join(dir, 'new-bot'), {
      source: { kind: 'tarball', file: tarball },
      log: (l) => lines.push(l),
    });
    expect(readdirSync(project).sort()).toEqual(
      [
        '.dockerignore',
        '.env.example',
        '.gitignore',
        'Dockerfile',
        'README.md',
        'bot.test.ts',
        'bot.ts',
        'compose.yaml',
        'package.json',
        'temporal',
        'tsconfig.json',
        'vendor',
      ].sort(),
    );
    expect(readdirSync(join(project, 'temporal'))).toEqual(['temporal.toml']);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies).toEqual({
      amsflow: 'file:vendor/amsflow-9.9.9.tgz',
    });
    expect(readFileSync(join(project, 'vendor', 'amsflow-9.9.9.tgz'), 'utf8')).toBe('bytes');
    expect(lines.join('\n')).toContain('npm install && npm start');
    expect(() =>
      initProject(project, { source: { kind: 'registry', version: '1.0.0' }, log: () => undefined }),
    ).toThrow(InitError);
    expect(readFileSync(join(project, 'package.json'), 'utf8')).toContain('file:vendor/amsflow-9.9.9.tgz');
  });
});

describe('the Temporal binaries of an installed amsflow', () => {
  it("go into the installing project's .amsflow/tools; in a clone, into the clone's", () => {
    expect(toolsDirFor('/home/me/my-bot/node_modules/amsflow/dist')).toBe('/home/me/my-bot/.amsflow/tools');
    expect(toolsDirFor('/home/me/amsflow')).toBe('/home/me/amsflow/.amsflow/tools');
  });
});

/** The repository's root, its package.json, and the sources of every variable the worker reads. */
const ROOT = resolve(__dirname, '..', '..');
const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  files: string[];
  engines: { node: string };
};

function sourcesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path, ext);
    return ext.test(name) ? [readFileSync(path, 'utf8')] : [];
  });
}

/** Whether the worker reads `name`: amsflow's worker and tools, or Temporal's environment configuration. */
const workerReads = (() => {
  const text = [
    ...sourcesUnder(join(ROOT, 'worker'), /\.ts$/),
    ...sourcesUnder(join(ROOT, 'tools'), /\.ts$/),
    ...sourcesUnder(dirname(require.resolve('@temporalio/envconfig')), /\.js$/),
  ].join('\n');
  return (name: string) => new RegExp(`\\b${name}\\b`).test(text);
})();

/** The instructions of a Dockerfile, continuation lines joined, comments left out. */
function instructions(dockerfile: string): { op: string; args: string }[] {
  return dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** The variables a dotenv-style file sets or shows commented out (`# NAME=`). */
const envNames = (text: string) => [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);

describe('the way to production it writes', () => {
  const read = (project: string, file: string) => readFileSync(join(project, file), 'utf8');
  let vendored: string;
  let registry: string;
  beforeAll(() => {
    const tarball = join(dir, 'amsflow-1.2.3.tgz');
    writeFileSync(tarball, 'bytes');
    const quiet = { log: () => undefined };
    vendored = initProject(join(dir, 'prod-vendored'), {
      ...quiet,
      source: { kind: 'tarball', file: tarball },
    });
    registry = initProject(join(dir, 'prod-registry'), {
      ...quiet,
      source: { kind: 'registry', version: '1.2.3' },
    });
  });

  it("a Dockerfile on Node's LTS: npm ci of the lockfile, production dependencies, CMD a script of package.json", () => {
    for (const project of [vendored, registry]) {
      const steps = instructions(read(project, 'Dockerfile'));
      expect(steps.filter((s) => s.op === 'FROM').map((s) => s.args)).toEqual([NODE_IMAGE]);
      expect(NODE_IMAGE).toMatch(/^node:24-/);
      // The image's Node satisfies the engines the project (and amsflow) declare: 24 is admitted.
      expect(own.engines.node).toMatch(/>=24\b|\^24\./);
      const copies = steps.filter((s) => s.op === 'COPY').map((s) => s.args);
      expect(copies[0]).toBe('package.json package-lock.json ./');
      // The tarball npm ci installs amsflow from, before npm ci; only when there is one.
      const pkg = JSON.parse(read(project, 'package.json'));
      const fromVendor = String(pkg.dependencies.amsflow).startsWith('file:vendor/');
      expect(copies.includes('vendor ./vendor')).toBe(fromVendor);
      expect(existsSync(join(project, 'vendor'))).toBe(fromVendor);
      const ci = steps.findIndex((s) => s.op === 'RUN' && s.args.startsWith('npm ci '));
      expect(steps[ci].args).toMatch(/--omit=dev/);
      expect(steps[ci].args).toMatch(/--ignore-scripts/);
      expect(steps.slice(0, ci).filter((s) => s.op === 'COPY').length).toBe(fromVendor ? 2 : 1);
      expect(steps.some((s, i) => i > ci && s.op === 'COPY' && s.args === '. .')).toBe(true);
      expect(steps.find((s) => s.op === 'USER')?.args).toBe('node');
      // CMD runs a script the project has: npm start, amsflow start bot.ts.
      const cmd = JSON.parse(steps.filter((s) => s.op === 'CMD').at(-1)!.args) as string[];
      expect(cmd.slice(0, 2)).toEqual(['npm', 'start']);
      expect(pkg.scripts[cmd[1]]).toBe('exec amsflow start bot.ts');
      expect(existsSync(join(project, 'bot.ts'))).toBe(true);
    }
  });

  it('a .dockerignore that keeps out node_modules, local state and the secrets, and keeps what the build needs', () => {
    const ignored = read(vendored, '.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.amsflow', '.env', 'temporal', '.git']));
    const matches = (pattern: string, name: string) =>
      new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`).test(name);
    expect(matches('*.test.ts', 'bot.test.ts')).toBe(true);
    for (const needed of ['package.json', 'package-lock.json', 'vendor', 'bot.ts', 'tsconfig.json']) {
      expect(ignored.filter((pattern) => matches(pattern, needed))).toEqual([]);
    }
    // The secrets stay out of git too.
    expect(read(vendored, '.gitignore').split('\n')).toEqual(
      expect.arrayContaining(['.env', 'temporal/*.key']),
    );
  });

  it('a compose file that parses, builds the Dockerfile and passes the variables the worker reads', () => {
    const file = parseYaml(read(vendored, 'compose.yaml')) as {
      name: string;
      services: Record<string, Record<string, unknown>>;
    };
    expect(file.name).toBe('prod-vendored');
    expect(Object.keys(file.services)).toEqual(['worker']);
    const worker = file.services.worker as {
      build: string;
      env_file: string;
      environment: Record<string, string>;
      volumes: string[];
      expose: string[];
      healthcheck: { test: string[] };
      stop_grace_period: string;
    };
    // Built from this folder: its Dockerfile.
    expect(worker.build).toBe('.');
    expect(existsSync(join(vendored, worker.build, 'Dockerfile'))).toBe(true);
    // Settings from .env (the example lists them), the token required, the profile named.
    expect(worker.env_file).toBe('.env');
    expect(worker.environment.AMS_TOKEN).toMatch(/^\$\{AMS_TOKEN:\?.+\}$/);
    expect(worker.environment.TEMPORAL_PROFILE).toBe('${TEMPORAL_PROFILE:-default}');
    // temporal/ is mounted where TEMPORAL_CONFIG_FILE looks.
    const [host, container] = worker.volumes[0].split(':');
    expect(host).toBe('./temporal');
    expect(relative(container, worker.environment.TEMPORAL_CONFIG_FILE)).toBe('temporal.toml');
    expect(existsSync(join(vendored, host, 'temporal.toml'))).toBe(true);
    // Every variable the compose file and .env.example name is one the worker reads.
    const example = read(vendored, '.env.example');
    const names = [...Object.keys(worker.environment), ...envNames(example)];
    expect(names).toEqual(
      expect.arrayContaining([
        'AMS_TOKEN',
        'AMSFLOW_AGENT',
        'TEMPORAL_CONFIG_FILE',
        'TEMPORAL_PROFILE',
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_API_KEY',
        'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
        'TEMPORAL_TLS_CLIENT_CERT_PATH',
        'TEMPORAL_TLS_CLIENT_KEY_PATH',
        'TEMPORAL_TLS_SERVER_NAME',
      ]),
    );
    expect(names.filter((name) => !workerReads(name))).toEqual([]);
    expect(workerReads('AMSFLOW_NO_SUCH_VARIABLE')).toBe(false);
    // The health check and the published port are the Dockerfile's metrics port.
    const port = /AMSFLOW_METRICS_PORT=(\d+)/.exec(read(vendored, 'Dockerfile'))![1];
    expect(worker.expose).toEqual([port]);
    expect(worker.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${port}/readyz`);
    expect(worker.stop_grace_period).toBe('60s');
  });

  it('a Temporal profile the worker reads: without an address the start is refused, naming it', () => {
    const file = join(vendored, 'temporal', 'temporal.toml');
    const env = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'default' };
    expect(() => loadTemporalProfile(env)).toThrow(
      'profile "default" given but no address: set TEMPORAL_ADDRESS (host:port) or an address in the profile',
    );
    expect(loadTemporalProfile({ ...env, TEMPORAL_ADDRESS: 'temporal.internal:7233' })).toMatchObject({
      address: 'temporal.internal:7233',
    });
    // Its address filled in, as the README says.
    const filled = join(dir, 'filled.toml');
    writeFileSync(
      filled,
      readFileSync(file, 'utf8')
        .replace('# address = "temporal.internal:7233"', 'address = "temporal.internal:7233"')
        .replace('# namespace = "default"', 'namespace = "bots"'),
    );
    expect(loadTemporalProfile({ TEMPORAL_CONFIG_FILE: filled, TEMPORAL_PROFILE: 'default' })).toMatchObject({
      address: 'temporal.internal:7233',
      namespace: 'bots',
    });
  });

  it('a README with the commands to production and the guides, which the package ships', () => {
    const readme = read(vendored, 'README.md');
    const section = readme.slice(readme.indexOf('## To production'));
    expect(section).toContain('docker compose up -d --build');
    expect(section).toContain('cp .env.example .env');
    expect(section).toContain('npm install');
    expect(section).toContain('temporal/temporal.toml');
    expect(section).toContain('docker build -t prod-vendored .');
    for (const guide of GUIDES) {
      expect(readme).toContain(`node_modules/amsflow/${guide.path}`);
      expect(existsSync(join(ROOT, guide.path))).toBe(true);
      expect(own.files).toContain(guide.path);
    }
    expect(readFileSync(join(vendored, 'bot.ts'), 'utf8')).toContain(
      'node_modules/amsflow/workflows/README.md',
    );
  });
});
