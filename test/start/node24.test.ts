/**
 * amsflow on Node 24, the Node of the image `amsflow init` writes (long tier). Node 24 is the npm
 * registry's `node` package at a pinned version, installed by the project's own set-up into
 * `.amsflow/tools/node24` (scripts/node24.ts; `npm run setup`, the postinstall, does it, and this
 * suite calls the same function, which finds it there). Put first on the PATH, it runs everything
 * below: npm, the packed amsflow's `amsflow init`, the project's `npm install` (amsflow from its
 * `vendor/` tarball, the Temporal binaries by its postinstall) and its own `npm test` (the
 * scaffold's test: a greeting, a reminder that fires, an approval).
 *
 * Then the project's worker serves an echo as its container would: the Dockerfile's CMD (`npm
 * start`), with the environment compose.yaml gives it (.env, the variables it sets, the
 * Dockerfile's ENV, the profile of temporal/temporal.toml that TEMPORAL_PROFILE names, its
 * /etc/temporal mount read as the project's temporal/ folder), against the suite's Temporal dev
 * server and a simulator of the service. The bot calls its own TypeScript activity
 * (AMSFLOW_ACTIVITIES=./activities.ts, importing another .ts file), which answers with the Node
 * major it runs on: 24. A broken activities module stops that start with one line naming it. The
 * measured times go to test-artifacts/node24-timings.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { load as parseYaml } from 'js-yaml';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { installNode24, NODE24, NODE24_BIN_DIR, NODE24_VERSION } from '../../scripts/node24';
import { collectLines } from '../support/output-lines';
import { devServerAddress, uniqueTaskQueue, waitFor } from '../support/temporal';
import { cleanEnv, installConsumer, sharedTarball, root } from '../package/support';

const MINUTE = 60_000;

/** A user's shell on Node 24: no npm_* of this run, none of the suite's AMS/AMSFLOW/TEMPORAL variables. */
function node24Env(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(cleanEnv()).filter(([key]) => !/^(AMS|AMSFLOW|TEMPORAL)_/.test(key)),
  );
  return { ...env, PATH: `${NODE24_BIN_DIR}${delimiter}${env.PATH ?? ''}` };
}

/** Runs a command; its exit code, its output (both streams, without colours) and its seconds. */
function sh(command: string, args: string[], cwd: string, timeoutMs: number, env = node24Env()) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  return {
    status: result.status,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? '',
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`.replace(
      // eslint-disable-next-line no-control-regex -- ANSI escapes
      /\x1b\[[0-9;]*m/g,
      '',
    ),
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

/** `KEY=value` lines of a dotenv file (comments and blank lines left out). */
function dotenv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
}

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}` from `vars`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g,
    (_, name: string, kind?: string, rest?: string) => {
      const set = vars[name];
      if (set) return set;
      if (kind === '?') throw new Error(`compose would refuse: ${rest}`);
      return kind === '-' ? (rest ?? '') : '';
    },
  );
}

/**
 * The environment the container of compose.yaml's worker would have, on this machine: the
 * Dockerfile's ENV, then the service's env_file, then its environment (interpolated from .env),
 * with paths under its volumes' container side read as their host side (the project's folders).
 */
function containerEnv(project: string): Record<string, string> {
  const compose = parseYaml(readFileSync(join(project, 'compose.yaml'), 'utf8')) as {
    services: { worker: { env_file: string; environment: Record<string, string>; volumes: string[] } };
  };
  const worker = compose.services.worker;
  const dotEnv = dotenv(readFileSync(join(project, worker.env_file), 'utf8'));
  const image = readFileSync(join(project, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const imageEnv = Object.fromEntries(
    [...(/^ENV (.*)$/m.exec(image)?.[1] ?? '').matchAll(/([A-Z0-9_]+)=(\S+)/g)].map((m) => [m[1], m[2]]),
  );
  const env: Record<string, string> = {
    ...imageEnv,
    ...dotEnv,
    ...Object.fromEntries(
      Object.entries(worker.environment).map(([name, value]) => [name, interpolate(String(value), dotEnv)]),
    ),
  };
  for (const volume of worker.volumes) {
    const [host, container] = volume.split(':');
    for (const [name, value] of Object.entries(env)) {
      if (value === container || value.startsWith(`${container}/`)) {
        env[name] = resolve(project, host) + value.slice(container.length);
      }
    }
  }
  return env;
}

/** A log line's text: the `msg` of a JSON line (AMSFLOW_LOG_FORMAT=json), else the line. */
function logText(line: string): string {
  try {
    const parsed = JSON.parse(line) as { msg?: unknown };
    return typeof parsed.msg === 'string' ? parsed.msg : line;
  } catch {
    return line;
  }
}

/** The Dockerfile's CMD (exec form). */
function dockerCmd(project: string): string[] {
  const line = readFileSync(join(project, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('CMD '))
    .at(-1);
  if (!line) throw new Error('the Dockerfile has no CMD');
  return JSON.parse(line.slice('CMD '.length)) as string[];
}

/** The bot the worker serves here: every text is shouted back by the project's own activity. */
const ECHO_BOT = `import { proxyActivities } from '@temporalio/workflow';
import { handleMessages, reply, textOf } from 'amsflow/workflows';
import type * as activities from './activities';

const { shout } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });

export const onMessage = handleMessages(async (msg) => {
  await reply(msg, await shout(textOf(msg) ?? ''));
});
`;

const ACTIVITIES = `import { MARK, type Mark } from './lib/mark';

/** Runs in the worker's Node: it says which. */
export async function shout(text: string): Promise<string> {
  const mark: Mark = MARK;
  return \`\${text.toUpperCase()}\${mark} (node \${process.versions.node.split('.')[0]})\`;
}
`;

const MARK = `export type Mark = '!' | '?';
export const MARK: Mark = '!';
`;

describe('amsflow on Node 24: the scaffold and an echo through its worker', () => {
  let dir: string;
  let project: string;
  let bin: string;
  const timings: Record<string, number> = {};
  let worker: { child: ChildProcess; output: string[]; exited: Promise<number | null> } | undefined;
  let sim: RunningSimulator | undefined;

  beforeAll(() => {
    let started = Date.now();
    // The project's own set-up (npm run setup does the same); cached in .amsflow/tools/node24.
    expect(installNode24()).toBe(NODE24);
    timings.node24Install = (Date.now() - started) / 1000;
    dir = mkdtempSync(join(tmpdir(), 'amsflow-node24-'));
    started = Date.now();
    const consumer = installConsumer(dir, sharedTarball(dir));
    timings.packAndConsumerInstall = (Date.now() - started) / 1000;
    bin = join(consumer, 'node_modules', '.bin', 'amsflow');
    project = join(dir, 'my-bot');
    const init = sh(bin, ['init', project], dir, MINUTE);
    timings.init = init.seconds;
    if (init.status !== 0) throw new Error(`amsflow init on Node 24 failed:\n${init.output}`);
  }, 6 * MINUTE);

  afterAll(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    await sim?.close();
    mkdirSync(join(root, 'test-artifacts'), { recursive: true });
    writeFileSync(
      join(root, 'test-artifacts', 'node24-timings.json'),
      `${JSON.stringify(timings, null, 2)}\n`,
    );
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 90_000);

  it('runs on the Node 24 of .amsflow/tools, which the engines of amsflow and its project admit', () => {
    expect(sh('node', ['--version'], dir, MINUTE).stdout.trim()).toBe(`v${NODE24_VERSION}`);
    const engines = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).engines.node as string;
    expect(engines).toMatch(/>=24\b/);
  });

  it(
    'installs with npm install and passes its own npm test, npm and jest on Node 24',
    () => {
      const install = sh(
        'npm',
        ['install', '--no-audit', '--no-fund', '--engine-strict'],
        project,
        10 * MINUTE,
      );
      timings.scaffoldInstall = install.seconds;
      if (install.status !== 0) throw new Error(`npm install on Node 24 failed:\n${install.output}`);
      // npm itself runs on Node 24 (it names the node that runs it), so do the scripts it starts.
      const env = sh('npm', ['run', '--silent', 'env'], project, MINUTE).stdout;
      expect(env).toContain(`npm_node_execpath=${NODE24}`);
      const test = sh('npm', ['test'], project, 8 * MINUTE);
      timings.scaffoldTest = test.seconds;
      if (test.status !== 0) throw new Error(`npm test on Node 24 failed:\n${test.output}`);
      expect(test.output).toMatch(/Tests:\s+3 passed, 3 total/);
    },
    19 * MINUTE,
  );

  it(
    "serves an echo through its worker on Node 24, started as compose.yaml's container: its TypeScript activity answers",
    async () => {
      writeFileSync(join(project, 'bot.ts'), ECHO_BOT);
      writeFileSync(join(project, 'activities.ts'), ACTIVITIES);
      mkdirSync(join(project, 'lib'), { recursive: true });
      writeFileSync(join(project, 'lib', 'mark.ts'), MARK);
      // The project's own type check still passes with them.
      const typecheck = sh('npm', ['run', '--silent', 'typecheck'], project, 2 * MINUTE);
      expect(typecheck.output).toBe('');
      expect(typecheck.status).toBe(0);

      const agentKey = `n24-${randomUUID().slice(0, 8)}`;
      const token = `token-${randomUUID()}`;
      sim = await startSimulator({ port: 0, agents: [{ id: agentKey, token, creator: 'user:24' }] });
      // What a user does (README, "To production"): the profile's address, then .env from the example.
      const toml = join(project, 'temporal', 'temporal.toml');
      writeFileSync(
        toml,
        readFileSync(toml, 'utf8').replace(
          '# address = "temporal.internal:7233"',
          `address = "${devServerAddress()}"`,
        ),
      );
      const example = readFileSync(join(project, '.env.example'), 'utf8');
      writeFileSync(
        join(project, '.env'),
        example
          .replace(/^AMS_TOKEN=$/m, `AMS_TOKEN=${token}`)
          .replace(/^AMSFLOW_AGENT=.*$/m, `AMSFLOW_AGENT=${agentKey}`)
          .replace(/^# AMS_BASE_URL=.*$/m, `AMS_BASE_URL=${sim.url}`)
          .replace(/^AMSFLOW_TASK_QUEUE=.*$/m, `AMSFLOW_TASK_QUEUE=${uniqueTaskQueue('node24')}`)
          .replace(/^# AMSFLOW_ACTIVITIES=.*$/m, 'AMSFLOW_ACTIVITIES=./activities.ts'),
      );
      const env = containerEnv(project);
      expect(env).toMatchObject({
        TEMPORAL_CONFIG_FILE: toml,
        TEMPORAL_PROFILE: 'default',
        AMS_TOKEN: token,
        AMSFLOW_ACTIVITIES: './activities.ts',
        NODE_ENV: 'production',
      });
      // Not the container's port 9464 on every interface: any free port, on loopback.
      Object.assign(env, { AMSFLOW_METRICS_PORT: '0', AMSFLOW_METRICS_HOST: '127.0.0.1' });

      const [command, ...args] = dockerCmd(project);
      const started = Date.now();
      const child = spawn(command, args, {
        cwd: project,
        env: { ...node24Env(), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output = collectLines(child);
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      worker = { child, output, exited };
      const log = () => output.join('\n');
      // AMSFLOW_LOG_FORMAT=json (.env.example): one JSON object a line, its text in `msg`.
      const said = () => output.map(logText);
      await waitFor(
        'the worker on Node 24 to serve the agent',
        () => {
          if (child.exitCode !== null) throw new Error(`npm start exited early:\n${log()}`);
          return said().some((line) => line.includes(`agent "${agentKey}" is running`));
        },
        { timeoutMs: 2 * MINUTE, intervalMs: 200 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${log()}`);
      });
      timings.workerStart = (Date.now() - started) / 1000;

      const asked = Date.now();
      await sim.control.humanText('hello', { agent: agentKey });
      const text = (sent: { body: unknown }) => (sent.body as { text?: { body?: string } }).text?.body;
      const answer = await waitFor(
        'the echo',
        async () =>
          (await sim!.control.transcript({ agent: agentKey })).sent.find((s) => text(s) !== undefined),
        { timeoutMs: 30_000, intervalMs: 100 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${log()}`);
      });
      timings.echoMs = Date.now() - asked;
      expect(text(answer)).toBe('HELLO! (node 24)');
      expect(answer.to).toBe('user:24');

      // docker stop: SIGTERM to the container's process, npm, which hands it to amsflow; it drains.
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        exited,
        new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), MINUTE))),
      ]).finally(() => clearTimeout(timer));
      expect({ code, last: said().at(-1) }).toEqual({ code: 0, last: 'amsflow: stopped' });
    },
    5 * MINUTE,
  );

  it(
    'stops a start on Node 24 whose activities module does not load, with one line naming it',
    () => {
      writeFileSync(
        join(project, 'broken.ts'),
        "import { nothing } from './lib/none';\nexport const f = () => nothing;\n",
      );
      const env = {
        ...node24Env(),
        ...containerEnv(project),
        AMSFLOW_ACTIVITIES: './broken.ts',
        AMSFLOW_METRICS_PORT: '0',
      };
      const start = sh(
        join(project, 'node_modules', '.bin', 'amsflow'),
        ['start', 'bot.ts'],
        project,
        2 * MINUTE,
        env,
      );
      expect({ status: start.status, stderr: start.stderr.trim() }).toEqual({
        status: 1,
        stderr: "AMSFLOW_ACTIVITIES=broken.ts: cannot load: Cannot find module './lib/none' (from broken.ts)",
      });
    },
    3 * MINUTE,
  );
});
