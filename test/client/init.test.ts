/**
 * `amsflow init`'s parts without npm: where the running amsflow came from (a clone, a tarball, the
 * registry, as npm recorded it), the project's name and package.json, the files written, and the
 * refusal of a folder in use. The whole command, from the packed package to a green `npm test`
 * in the new project, is test/package/init.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { amsflowSource, initProject, InitError, packageName, projectManifest } from '../../client/init';
import { toolsDirFor } from '../../tools/temporal-binaries';

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
      ['.gitignore', 'README.md', 'bot.test.ts', 'bot.ts', 'package.json', 'tsconfig.json', 'vendor'].sort(),
    );
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
