/**
 * amsflow as an installed package. `npm pack` (whose prepack builds a fresh `dist/`) makes a
 * tarball of the build and the guides its documentation names (workflows/README.md,
 * docs/OPERATIONS.md, ...): no sources, tests, `.amsflow` or node_modules. A consumer project
 * outside this repository installs that tarball with npm and then, without this repository's
 * tsconfig paths or bundler alias, resolves `amsflow`, `amsflow/workflows`, `amsflow/engine-workflows`, `amsflow/internal`,
 * `amsflow/testing` and the `amsflow` command, type-checks against the shipped declarations and
 * bundles a workflow module that imports `amsflow/workflows`. Finally the consumer runs the README's
 * bot with amsflow's public API (`runAmsflow(loadConfig())` from `amsflow/worker`, in a process of its
 * own, configured by the documented variables) against the suite's Temporal dev server and a
 * simulator, and the signup conversation is held to its end.
 *
 * The consumer's dependencies are `file:` links to this project's node_modules, so the install
 * needs neither the registry nor the npm cache (`--offline`), and takes about a second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { connectDevServer, devServerAddress, uniqueTaskQueue, waitFor } from '../support/temporal';
import { collectLines } from '../support/output-lines';
import { cleanEnv, installConsumer, manifest, sharedTarball, root, run } from './support';
import { BOT, GUIDES, readme } from '../../client/init-templates';

/** The bot of the README's "Writing a bot" section, as written: the first ts block after it. */
function readmeBot(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Writing a bot')));
  if (!block) throw new Error('README.md has no ts block under "## Writing a bot"');
  return block[1];
}

/** An application's side: the other entry points' names and types. */
const APP = `import { ensureAgent, textMessage } from 'amsflow';
import { runAmsflow, type RunningAmsflow } from 'amsflow/worker';
import { DEFAULT_TUNING, type AgentTuning } from 'amsflow/internal';
import { createBotTestEnv } from 'amsflow/testing';
export const tuning: AgentTuning = DEFAULT_TUNING;
export const message = textMessage('hello');
export const queueOf = (running: RunningAmsflow): string => running.taskQueue;
export const names = [ensureAgent, runAmsflow, createBotTestEnv];
`;

/**
 * Bundles the bot with the consumer's @temporalio/worker into the file named by the first
 * argument: `plain` as a consumer's own build step would (for AMSFLOW_WORKFLOW_BUNDLE), `worker`
 * with the bundler options the installed amsflow worker itself uses (worker/bundling.ts).
 */
const BUNDLE = `const { join, dirname } = require('node:path');
const { bundleWorkflowCode } = require('@temporalio/worker');
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const installed = dirname(require.resolve('amsflow/package.json'));
const bundlerOptions =
  process.argv[2] === 'worker'
    ? require(join(installed, 'dist', 'worker', 'bundling.js')).workflowBundlerOptions()
    : undefined;
bundleWorkflowCode({ ...bundlerOptions, workflowsPath: require.resolve('./bot.ts'), logger: quiet }).then(
  ({ code }) => {
    require('node:fs').writeFileSync(process.argv[2] + '-bundle.js', code);
    process.exit(0);
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
`;

/**
 * The consumer's own start script: amsflow from the installed package, through its public API,
 * configured by the environment (TEMPORAL_ADDRESS, AMS_*, AMSFLOW_*), stopped by SIGINT.
 */
const RUN_BOT = `const { loadConfig, runAmsflow } = require('amsflow/worker');
runAmsflow(loadConfig(), (line) => console.log(line))
  .then((running) => {
    const stop = () => void running.shutdown();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    console.log('consumer: running on ' + running.taskQueue);
    return running.done;
  })
  .then(
    () => {
      console.log('consumer: stopped');
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
`;

/** A process started in the consumer, its output and its exit. */
interface ConsumerProcess {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

function startInConsumer(cwd: string, script: string, env: NodeJS.ProcessEnv): ConsumerProcess {
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  collectLines(child, output);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output, exited };
}

/** Resolves with the exit code, or undefined if the process has not exited within `ms`. */
function exitWithin(proc: ConsumerProcess, ms: number): Promise<number | null | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    proc.exited,
    new Promise<undefined>((done) => (timer = setTimeout(() => done(undefined), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Type-checks the consumer's files with this project's TypeScript, in a child process (several
 * times faster than inside jest). Arguments: the TypeScript module, `node10` or `node16`, and
 * `shipped` to check amsflow's declarations too, which the consumer reads from its node_modules;
 * other libraries' declarations are only read, as with skipLibCheck. Prints the errors as JSON.
 */
const TYPECHECK = `const ts = require(process.argv[2]);
const { join, resolve, sep } = require('node:path');
const node16 = process.argv[3] === 'node16';
const program = ts.createProgram([join(__dirname, 'bot.ts'), join(__dirname, 'app.ts')], {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: ['node'],
  esModuleInterop: true,
  module: node16 ? ts.ModuleKind.Node16 : ts.ModuleKind.CommonJS,
  moduleResolution: node16 ? ts.ModuleResolutionKind.Node16 : ts.ModuleResolutionKind.Node10,
});
const shipped = program.getSourceFiles().filter((f) => f.fileName.includes('/node_modules/amsflow/dist/'));
const own = program.getSourceFiles().filter((f) => resolve(f.fileName).startsWith(__dirname + sep) &&
  (process.argv[4] === 'shipped' || !shipped.includes(f)));
const errors = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
  .concat(own.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]))
  .map((d) => (d.file ? d.file.fileName + '(' + (d.file.getLineAndCharacterOfPosition(d.start || 0).line + 1) + '): ' : '') +
    ts.flattenDiagnosticMessageText(d.messageText, '\\n'));
if (shipped.length === 0) errors.push('no declaration of amsflow was read');
console.log(JSON.stringify(errors));
`;

describe('amsflow as an installed package', () => {
  let dir: string;
  let tarball: string;
  let entries: string[];
  let consumer: string;
  let installed: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'amsflow-package-'));
    // The real command, prepack included: it removes dist/ and builds it afresh (once per run).
    tarball = sharedTarball(dir);
    entries = run('tar', ['-tzf', tarball], {})
      .split('\n')
      .filter(Boolean)
      .map((e) => e.replace(/^package\//, ''));
    // amsflow's postinstall is run on its own below.
    consumer = installConsumer(dir, tarball);
    installed = join(consumer, 'node_modules', manifest.name);
    writeFileSync(join(consumer, 'bot.ts'), readmeBot());
    writeFileSync(join(consumer, 'app.ts'), APP);
    writeFileSync(join(consumer, 'bundle.js'), BUNDLE);
    writeFileSync(join(consumer, 'typecheck.js'), TYPECHECK);
    writeFileSync(join(consumer, 'run-bot.js'), RUN_BOT);
  }, 120_000);

  // What the running test leaves behind when it fails half-way: its process, agent workflow and
  // simulator. Stopped here before the folder goes.
  let bot: ConsumerProcess | undefined;
  let sim: RunningSimulator | undefined;
  let temporal: Awaited<ReturnType<typeof connectDevServer>> | undefined;
  let agentKey: string | undefined;

  afterAll(async () => {
    if (bot && bot.child.exitCode === null && bot.child.signalCode === null) {
      bot.child.kill('SIGKILL');
      await bot.exited;
    }
    if (temporal && agentKey) {
      await temporal.client.workflow
        .getHandle(`agent:${agentKey}`)
        .terminate('test over')
        .catch(() => undefined);
    }
    await temporal?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('packs the build, the README and package.json, and no sources, tests or local state', () => {
    expect(entries).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']),
    );
    const unwanted = entries.filter(
      (e) =>
        /^(test|bench|scripts|\.ci|\.git)\//.test(e) ||
        /(^|\/)(\.amsflow|node_modules)\//.test(e) ||
        (e.endsWith('.ts') && !e.endsWith('.d.ts')) ||
        e.endsWith('.map') ||
        /\.test\./.test(e) ||
        /^(tsconfig|jest\.config|eslint\.config|package-lock)/.test(e),
    );
    expect(unwanted).toEqual([]);
    // Everything else is the build, the web chat's static files for the simulator, the guides
    // (below), and the licence if there is one.
    expect(
      entries.filter(
        (e) =>
          !/^(dist|simulator\/web)\//.test(e) &&
          e !== 'package.json' &&
          e !== 'README.md' &&
          !manifest.files.includes(e),
      ),
    ).toEqual(readdirSync(root).filter((f) => /^(LICEN[CS]E|COPYING)/i.test(f)));
  });

  it("ships the guides that amsflow init's project, its README and the banner name", () => {
    const guides = manifest.files.filter((f) => f.endsWith('.md'));
    expect(guides).toEqual(expect.arrayContaining(GUIDES.map((g) => g.path)));
    expect(guides.filter((g) => !entries.includes(g))).toEqual([]);
    // Every node_modules/amsflow/<file> the project's files name is in the package.
    const named = [readme('my-bot', '0.1.0'), BOT].flatMap((text) =>
      [...text.matchAll(/node_modules\/amsflow\/([\w./-]+\.md)/g)].map((m) => m[1]),
    );
    expect(named.length).toBeGreaterThanOrEqual(GUIDES.length);
    expect(named.filter((file) => !entries.includes(file))).toEqual([]);
    // The worker's banner names docs/OPERATIONS.md where the project finds it.
    const banner = join(installed, 'dist', 'worker', 'banner.js');
    const shown = run(
      process.execPath,
      ['-p', `require(${JSON.stringify(banner)}).guidePath('docs/OPERATIONS.md')`],
      { cwd: consumer },
    ).trim();
    expect(shown).toBe('node_modules/amsflow/docs/OPERATIONS.md');
    expect(existsSync(join(consumer, shown))).toBe(true);
  });

  it('ships every file its exports map and bin name', () => {
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : [target.types, target.default],
    );
    targets.push(...Object.values(manifest.bin));
    expect(targets.map((t) => t.replace(/^\.\//, '')).filter((t) => !entries.includes(t))).toEqual([]);
  });

  it('does not run the project set-up when installed: its postinstall is a no-op there', () => {
    expect(existsSync(join(installed, 'scripts'))).toBe(false);
    // In this repository the same script runs scripts/setup.ts (Temporal binaries, chromium).
    expect(manifest.scripts.postinstall).toContain('scripts/setup.ts');
    expect(run('npm', ['run', '--silent', 'postinstall'], { cwd: installed })).toBe('');
  });

  /** What `require(name)` gives in a plain node process in the consumer: its file and names. */
  function probe(names: string[]): Record<string, { path: string; exports: string[] } | { error: string }> {
    const code = `const out = {};
      for (const m of ${JSON.stringify(names)}) {
        try { out[m] = { path: require.resolve(m), exports: Object.keys(require(m)) }; }
        catch (e) { out[m] = { error: e.code || e.message }; }
      }
      console.log(JSON.stringify(out));`;
    return JSON.parse(run(process.execPath, ['-e', code], { cwd: consumer }));
  }

  it('resolves amsflow, amsflow/worker, amsflow/workflows, amsflow/engine-workflows and amsflow/internal to the build, from a plain node', () => {
    const dist = join(installed, 'dist');
    const resolved = probe([
      'amsflow',
      'amsflow/worker',
      'amsflow/workflows',
      'amsflow/engine-workflows',
      'amsflow/internal',
      'amsflow/dist/index.js',
    ]);
    // The author API has none of amsflow's own workflows: every bundle gets them from engine-workflows.
    expect((resolved['amsflow/workflows'] as { exports: string[] }).exports).not.toContain('agentWorkflow');
    expect(resolved).toEqual({
      amsflow: {
        path: join(dist, 'index.js'),
        exports: expect.arrayContaining([
          'ensureAgent',
          'sendThroughOutbox',
          'startSimulator',
          'textMessage',
        ]),
      },
      'amsflow/worker': {
        path: join(dist, 'worker', 'index.js'),
        exports: expect.arrayContaining(['runAmsflow', 'bundleBot', 'createActivities', 'loadConfig']),
      },
      'amsflow/workflows': {
        path: join(dist, 'workflows', 'index.js'),
        exports: expect.arrayContaining(['handleMessages', 'ask', 'reply', 'isText', 'textOf']),
      },
      'amsflow/engine-workflows': {
        path: join(dist, 'workflows', 'engine-workflows.js'),
        exports: expect.arrayContaining([
          'agentWorkflow',
          'approvalWorkflow',
          'remindersWorkflow',
          'modelMemoryWorkflow',
        ]),
      },
      'amsflow/internal': {
        path: join(dist, 'workflows', 'internal.js'),
        exports: expect.arrayContaining(['DEFAULT_TUNING']),
      },
      // Only the exports map's names: dist/ itself is not public.
      'amsflow/dist/index.js': { error: 'ERR_PACKAGE_PATH_NOT_EXPORTED' },
    });
  });

  it('resolves amsflow/testing to the build (with @temporalio/testing installed by the consumer)', () => {
    expect(probe(['amsflow/testing'])).toEqual({
      'amsflow/testing': {
        path: join(installed, 'dist', 'testing', 'index.js'),
        exports: expect.arrayContaining(['createBotTestEnv']),
      },
    });
  });

  it('installs the amsflow command, which runs', () => {
    const bin = join(consumer, 'node_modules', '.bin', 'amsflow');
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(run(bin, ['--help'], { cwd: consumer })).toMatch(/^usage:\n\s+amsflow ensure/);
  });

  // node10 (`"moduleResolution": "node"`) ignores the exports map: typesVersions serves it. The
  // shipped declarations are checked once, on the first run.
  it.each([
    ['node10', 'shipped'],
    ['node16', 'consumer'],
  ])('type-checks a consumer against the shipped declarations (moduleResolution %s)', (resolution, scope) => {
    const typescript = require.resolve('typescript', { paths: [root] });
    const out = run(process.execPath, ['typecheck.js', typescript, resolution, scope], { cwd: consumer });
    expect(JSON.parse(out)).toEqual([]);
  });

  it.each(['plain', 'worker'])(
    'bundles a workflow module importing amsflow/workflows against the build (%s bundler options)',
    (options) => {
      run(process.execPath, ['bundle.js', options], { cwd: consumer, timeout: 60_000 });
      const code = readFileSync(join(consumer, `${options}-bundle.js`), 'utf8');
      expect(code).toContain('node_modules/amsflow/dist/workflows/index.js');
      expect(code).not.toContain(join(root, 'workflows') + sep);
    },
  );

  it('runs the README bot with runAmsflow from the installed package: the signup conversation completes', async () => {
    agentKey = `pkg-${randomUUID().slice(0, 8)}`;
    const token = `token-${randomUUID()}`;
    sim = await startSimulator({ port: 0, agents: [{ id: agentKey, token, creator: 'user:4242' }] });
    temporal = await connectDevServer();
    // Only the variables of this run: none of the suite's AMS_*, AMSFLOW_* or TEMPORAL_*.
    const inherited = Object.entries(cleanEnv()).filter(([key]) => !/^(AMS|AMSFLOW|TEMPORAL)_/.test(key));
    bot = startInConsumer(consumer, 'run-bot.js', {
      ...Object.fromEntries(inherited),
      TEMPORAL_ADDRESS: devServerAddress(),
      AMS_BASE_URL: sim.url,
      AMS_TOKEN: token,
      AMSFLOW_AGENT: agentKey,
      AMSFLOW_TASK_QUEUE: uniqueTaskQueue('package'),
      AMSFLOW_WORKFLOWS: './bot.ts',
      AMSFLOW_METRICS_PORT: '0',
    });
    const proc = bot;
    const log = () => proc.output.join('\n');
    await waitFor(
      'the consumer to report running',
      () => {
        if (proc.child.exitCode !== null) throw new Error(`run-bot.js exited early:\n${log()}`);
        return proc.output.some((line) => line.startsWith('consumer: running on package-'));
      },
      { timeoutMs: 45_000, intervalMs: 100 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${log()}`);
    });
    // The installed runAmsflow bundled the bot, started its workers and the agent's workflow.
    expect(log()).toContain(`amsflow: agent "${agentKey}" is running (workflow agent:${agentKey})`);

    const human = async (text: string) => (await sim!.control.humanText(text, { agent: agentKey })).id;
    const text = (sent: { body: unknown } | undefined) =>
      (sent?.body as { text?: { body?: string } } | undefined)?.text?.body;
    const quoted = (sent: { body: unknown }) =>
      (sent.body as { context?: { message_id?: string } }).context?.message_id;
    const botSaid = (what: string, check: (sent: { body: unknown }) => boolean) =>
      waitFor(what, async () => (await sim!.control.transcript({ agent: agentKey })).sent.find(check), {
        timeoutMs: 20_000,
        intervalMs: 100,
      }).catch((err: Error) => {
        throw new Error(`${err.message}\n${log()}`);
      });

    const signup = await human('signup');
    const q1 = await botSaid('the name question', (s) => text(s) === 'What is your name?');
    expect(quoted(q1)).toBe(signup);
    await human('Ada');
    await botSaid('the email question', (s) => text(s) === 'What is your email?');
    const email = await human('ada@example.com');
    const done = await botSaid('the confirmation', (s) => text(s)?.startsWith('Thanks') ?? false);
    expect(text(done)).toBe('Thanks Ada, registered ada@example.com');
    expect(quoted(done)).toBe(email);
    const { sent } = await sim.control.transcript({ agent: agentKey });
    expect(sent.map(text)).toEqual([
      'What is your name?',
      'What is your email?',
      'Thanks Ada, registered ada@example.com',
    ]);
    expect(sent.every((s) => s.to === 'user:4242')).toBe(true);

    // Ctrl-C stops it cleanly.
    proc.child.kill('SIGINT');
    expect(await exitWithin(proc, 30_000)).toBe(0);
    expect(proc.output.at(-1)).toBe('consumer: stopped');
  }, 90_000);
});
