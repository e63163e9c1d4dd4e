/**
 * A bot's own activities module (`AMSFLOW_ACTIVITIES`, worker/bot-activities.ts) as a project
 * made by `amsflow init` writes it: TypeScript, with type annotations, an `import type`, an enum
 * and an import of another TypeScript file, in a project folder of its own outside this
 * repository. The loader runs in a plain Node process where nothing else compiles that project
 * (ts-node is scoped to this repository's own sources, as in an installed amsflow nothing is
 * registered at all): the module's functions load and run. Each module that cannot be used fails
 * with one line naming the variable, the file and why; and the real worker entry, given one,
 * exits 1 with that line alone before anything starts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const TS_NODE = require.resolve('ts-node/register/transpile-only');
const project = mkdtempSync(join(tmpdir(), 'amsflow-activities-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = join(project, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

write('package.json', JSON.stringify({ name: 'my-bot', private: true }));
write(
  'activities.ts',
  `import { shout } from './lib/shout';
import type { Options } from './lib/shout';

export async function greet(name: string, options: Options = { loud: true }): Promise<string> {
  return options.loud ? shout(\`hello \${name}\`) : \`hello \${name}\`;
}
export const VERSION: number = 1;
`,
);
write(
  'lib/shout.ts',
  `export interface Options {
  loud: boolean;
}
enum Mark {
  Bang = '!',
}
export const shout = (text: string): string => text.toUpperCase() + Mark.Bang;
`,
);

/**
 * Loads each module with `loadBotActivities` in one plain node process (cwd: the project); ts-node
 * compiles only this repository's files there. Per module: its functions and what `greet('ada')`
 * answers, or the error's code and message.
 */
function load(
  files: string[],
): Record<string, { functions: string[]; greet?: string } | { code: string; message: string }> {
  const script = `const { loadBotActivities } = require(${JSON.stringify(join(ROOT, 'worker', 'bot-activities'))});
(async () => {
  const out = {};
  for (const file of ${JSON.stringify(files)}) {
    try {
      const fns = await loadBotActivities(require('node:path').resolve(file));
      out[file] = { functions: Object.keys(fns), greet: fns.greet && (await fns.greet('ada')) };
    } catch (e) {
      out[file] = { code: e.code, message: e.message };
    }
  }
  console.log(JSON.stringify(out));
})();
`;
  const result = spawnSync(process.execPath, ['-r', TS_NODE, '-e', script], {
    cwd: project,
    env: {
      ...process.env,
      TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
      TS_NODE_SCOPE: 'true',
      TS_NODE_SCOPE_DIR: ROOT,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0)
    throw new Error(`the loader's process failed:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!);
}

describe("a bot's TypeScript activities module", () => {
  it('loads in plain Node: types removed, its own .ts imports followed, its functions run', () => {
    expect(load(['activities.ts'])).toEqual({
      'activities.ts': { functions: ['greet'], greet: 'HELLO ADA!' },
    });
  });

  it('that cannot be used fails with one line naming AMSFLOW_ACTIVITIES, the file and why', () => {
    write('syntax.ts', 'export function f(x: number) {\n  return x +;\n}\n');
    write('bad-import.ts', "import { nope } from './missing';\nexport const f = () => nope;\n");
    write(
      'throws.ts',
      "const n: number = 1;\nthrow new Error('DATABASE_URL is not set');\nexport const f = () => n;\n",
    );
    write('no-functions.ts', 'export const n: number = 1;\nexport type T = string;\n');
    write('syntax.js', 'const x = {;\nmodule.exports = { x };\n');
    const results = load([
      'missing.ts',
      'syntax.ts',
      'bad-import.ts',
      'throws.ts',
      'no-functions.ts',
      'syntax.js',
    ]);
    const lines = Object.fromEntries(
      Object.entries(results).map(([file, result]) => {
        expect(result).toMatchObject({ code: 'AMSFLOW_BOT_ACTIVITIES' });
        const message = (result as { message: string }).message;
        expect(message).not.toContain('\n');
        return [file, message];
      }),
    );
    expect(lines).toEqual({
      'missing.ts': 'AMSFLOW_ACTIVITIES=missing.ts: cannot load: no such file',
      'syntax.ts':
        'AMSFLOW_ACTIVITIES=syntax.ts: cannot load: syntax error at syntax.ts:2: Expression expected',
      'bad-import.ts':
        "AMSFLOW_ACTIVITIES=bad-import.ts: cannot load: Cannot find module './missing' (from bad-import.ts)",
      'throws.ts':
        'AMSFLOW_ACTIVITIES=throws.ts: cannot load: it threw while loading: Error: DATABASE_URL is not set',
      'no-functions.ts':
        'AMSFLOW_ACTIVITIES=no-functions.ts: cannot load: no function exported (it exports n); export each activity as a function',
      'syntax.js': expect.stringMatching(
        /^AMSFLOW_ACTIVITIES=syntax\.js: cannot load: SyntaxError: Unexpected token/,
      ),
    });
  });

  it('that cannot be loaded stops the worker at start: exit 1, that line alone, nothing started', () => {
    const started = Date.now();
    const result = spawnSync(process.execPath, ['-r', TS_NODE, join(ROOT, 'worker', 'main.ts')], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_OPTIONS: process.env.NODE_OPTIONS,
        AMSFLOW_TS_NODE_CACHE_DIR: process.env.AMSFLOW_TS_NODE_CACHE_DIR,
        TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
        // An external cluster and the real service: nothing embedded; nothing is contacted
        // before the activities load.
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        AMS_TOKEN: 'token',
        AMS_BASE_URL: 'http://127.0.0.1:1/agent/v1',
        AMSFLOW_METRICS_PORT: 'off',
        AMSFLOW_ACTIVITIES: './throws.ts',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: result.status, stderr: result.stderr.trim() }).toEqual({
      status: 1,
      stderr:
        'AMSFLOW_ACTIVITIES=throws.ts: cannot load: it threw while loading: Error: DATABASE_URL is not set',
    });
    expect(result.stdout).not.toContain('amsflow: running');
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
