/**
 * Bad configuration and bad command lines: one clear message naming the problem, a non-zero exit,
 * and nothing started. Every variable of the worker's environment with a bad value goes through
 * `loadConfig` (config.test.ts has the agents file, the bot configuration and several problems at
 * once); a few representative ones run the real worker entry as a child process, checked for a
 * quick exit, one message, no process left, no port taken and no data dir made. The `amsflow` CLI's
 * subcommand checks are in test/client/*.test.ts; here: what they leave out.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../worker/config';
import { run } from '../client/cli-runner';
import { problemsOf } from './config-problems';

const ROOT = resolve(__dirname, '../..');
const SECRET = 'k1:c2VjcmV0LWtleS1tYXRlcmlhbA==';
const tmp = mkdtempSync(join(tmpdir(), 'amsflow-bad-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

describe('a bad value of any worker variable', () => {
  it.each([
    ['AMS_TOKEN', ' ', /at least 1 character/],
    ['AMSFLOW_AGENTS_FILE', ' ', /at least 1 character/],
    ['AMSFLOW_AGENTS_FILE', '/no/such/agents.json', /cannot read \/no\/such\/agents\.json as JSON/],
    ['AMSFLOW_AGENTS_FILE', file('object.json', '{"agentKey":"a","token":"t"}'), /Expected array/],
    [
      'AMSFLOW_AGENTS_FILE',
      file('nokey.json', '[{"token":"t"}]'),
      /nokey\.json, entry 1: agentKey: Required/,
    ],
    [
      'AMSFLOW_AGENTS_FILE',
      file('badurl.json', '[{"agentKey":"a","token":"t","baseUrl":"x"}]'),
      /badurl\.json, entry 1 \(agent "a"\): baseUrl: is not an absolute URL/,
    ],
    [
      'AMSFLOW_AGENTS_FILE',
      file('badkey.json', '[{"agentKey":"a b","token":"t"}]'),
      /entry 1 \(agent "a b"\): agentKey: use 1 to 100/,
    ],
    ['TEMPORAL_ADDRESS', ' ', /at least 1 character/],
    ['TEMPORAL_NAMESPACE', '', /at least 1 character/],
    ['AMSFLOW_TASK_QUEUE', ' ', /at least 1 character/],
    ['AMSFLOW_WORKFLOW_BUNDLE', './no/such/bundle.js', /no file at \.\/no\/such\/bundle\.js/],
    ['AMSFLOW_TIMEZONE', 'Mars/Olympus_Mons', /not an IANA time zone/],
    ['AMSFLOW_LIMITS', '{', /is not valid JSON/],
    ['AMSFLOW_LIMITS', '[]', /Expected object, received array/],
    ['AMSFLOW_LIMITS', 'null', /Expected object, received null/],
    ['AMSFLOW_LIMITS', '{"messages": 1.5}', /messages: Expected integer/],
    ['AMSFLOW_LIMITS', '{"windowMs": -1}', /windowMs: Number must be greater than 0/],
    ['AMSFLOW_LIMITS', '{"mesages": 3}', /Unrecognized key.*mesages/],
    ['AMSFLOW_TUNING', '"fast"', /Expected object, received string/],
    [
      'AMSFLOW_TUNING',
      '{"pollTimeoutSeconds": 26}',
      /pollTimeoutSeconds: Number must be less than or equal to 25/,
    ],
    ['AMSFLOW_TUNING', '{"pollLimit": "50"}', /pollLimit: Expected number, received string/],
    ['AMSFLOW_TUNING', '{"turbo": true}', /Unrecognized key.*turbo/],
    ['AMSFLOW_FLEET_AGENTS', '0', /greater than 0/],
    ['AMSFLOW_FLEET_AGENTS', 'many', /Expected number/],
    ['AMSFLOW_DEV_SERVER_PORT', '70000', /less than or equal to 65535/],
    ['AMSFLOW_DEV_SERVER_PORT', '', /Expected number/],
    ['AMSFLOW_DEV_SERVER_UI_PORT', '80.5', /Expected integer/],
    ['AMSFLOW_SIMULATOR_PORT', '-1', /greater than or equal to 0/],
    ['AMSFLOW_METRICS_PORT', 'on', /must be a port \(0 to 65535\) or off/],
    ['AMSFLOW_METRICS_PORT', ' ', /must be a port \(0 to 65535\) or off/],
    ['AMSFLOW_METRICS_HOST', ' ', /at least 1 character/],
    ['AMSFLOW_LOG_FORMAT', 'xml', /Expected 'json' \| 'pretty'/],
    ['AMSFLOW_LOG_LEVEL', 'loud', /Expected 'debug' \| 'info' \| 'warn' \| 'error'/],
    ['AMSFLOW_LOG_BODIES', 'yes', /Expected '0' \| '1' \| 'true' \| 'false'/],
    ['AMSFLOW_ENCRYPTION_KEYS', SECRET, /entry 1 \("k1"\): the key is 19 bytes/],
    ['AMSFLOW_ENCRYPTION_KEYS', 'not-a-key-list', /entry 1 is not id:base64key/],
  ])('%s=%j: one problem, named', (name, value, message) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(name)).toBe(true);
    expect(problems[0]).toMatch(message);
    if (name === 'AMSFLOW_ENCRYPTION_KEYS') expect(problems[0]).not.toContain(value.slice(3));
  });

  it('still takes the defaults when the ports are unset, and 0 or off when given', () => {
    expect(loadConfig({})).toMatchObject({ devServerPort: 7233, simulatorPort: 8080 });
    const config = loadConfig({ AMSFLOW_DEV_SERVER_PORT: '0', AMSFLOW_METRICS_PORT: 'off' });
    expect([config.devServerPort, config.observability.metricsPort]).toEqual([0, 'off']);
  });
});

/** Ports free right now, for the child to be given (and for the test to find free again). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => {
      const server = createServer();
      return new Promise<ReturnType<typeof createServer>>((ok) =>
        server.listen(0, '127.0.0.1', () => ok(server)),
      );
    }),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  return ports;
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((ok) => {
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

interface Exit {
  code: number | null;
  out: string;
  err: string;
  ms: number;
  pid: number;
}

/** Runs `node -r ts-node/register/transpile-only <script> ...args` in its own process group. */
function node(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const guard = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 45_000);
  return new Promise((ok) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      ok({ code, out, err, ms: Date.now() - started, pid: child.pid! });
    }),
  );
}

/** True while any process of the group `pid` leads is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the worker entry with a bad configuration', () => {
  it.each([
    ['AMSFLOW_LIMITS', '{"messages": 0}'],
    ['AMSFLOW_AGENTS_FILE', file('broken.json', '[{"agentKey": "a", "token": ')],
    ['AMSFLOW_METRICS_PORT', 'on'],
    ['AMSFLOW_WORKFLOW_BUNDLE', './no/such/bundle.js'],
    ['AMSFLOW_ENCRYPTION_KEYS', SECRET],
  ])('%s=%j: exits 1 at once with one message naming it; nothing started', async (name, value) => {
    const dataDir = join(tmp, `data-${name}`);
    const [dev, ui, sim, metrics] = await freePorts(4);
    const exit = await node('worker/main.ts', [], {
      AMSFLOW_DATA_DIR: dataDir,
      AMSFLOW_DEV_SERVER_PORT: String(dev),
      AMSFLOW_DEV_SERVER_UI_PORT: String(ui),
      AMSFLOW_SIMULATOR_PORT: String(sim),
      AMSFLOW_METRICS_PORT: String(metrics),
      [name]: value,
    });
    expect(exit.code).toBe(1);
    expect(exit.ms).toBeLessThan(20_000);
    const lines = exit.err.trim().split('\n');
    expect(lines).toEqual(['Invalid amsflow configuration:', expect.stringMatching(`^  - ${name}[ .:]`)]);
    expect(exit.err).not.toContain(SECRET);
    expect(exit.out).toBe('');
    expect(groupAlive(exit.pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    for (const port of [dev, ui, sim, metrics]) expect(await isFree(port)).toBe(true);
  });
});

describe('the worker entry: every problem in one message, before anything starts', () => {
  /** Listens on `ports` (as another program would) while `body` runs. */
  async function holding<T>(ports: number[], body: () => Promise<T>): Promise<T> {
    const servers = await Promise.all(
      ports.map(
        (port) =>
          new Promise<ReturnType<typeof createServer>>((ok) => {
            const server = createServer();
            server.listen(port, '127.0.0.1', () => ok(server));
          }),
      ),
    );
    try {
      return await body();
    } finally {
      await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
    }
  }

  it('every port in use, each with the variable that moves it', async () => {
    const dataDir = join(tmp, 'data-ports');
    const [dev, ui, sim, metrics] = await freePorts(4);
    const exit = await holding([dev, ui, sim, metrics], () =>
      node('worker/main.ts', [], {
        AMSFLOW_DATA_DIR: dataDir,
        AMSFLOW_DEV_SERVER_PORT: String(dev),
        AMSFLOW_DEV_SERVER_UI_PORT: String(ui),
        AMSFLOW_SIMULATOR_PORT: String(sim),
        AMSFLOW_METRICS_PORT: String(metrics),
        AMSFLOW_LIMITS: '{"messages": 0}',
      }),
    );
    expect(exit.code).toBe(1);
    const lines = exit.err.trim().split('\n');
    expect(lines).toEqual([
      'Invalid amsflow configuration:',
      '  - AMSFLOW_LIMITS.messages: Number must be greater than 0',
      expect.stringMatching(
        `^  - AMSFLOW_DEV_SERVER_PORT: 127\\.0\\.0\\.1:${dev}, the port of the embedded Temporal server \\(gRPC\\), is in use`,
      ),
      expect.stringMatching(
        `^  - AMSFLOW_DEV_SERVER_UI_PORT: 127\\.0\\.0\\.1:${ui}, the port of the Temporal UI, is in use`,
      ),
      expect.stringMatching(
        `^  - AMSFLOW_SIMULATOR_PORT: 127\\.0\\.0\\.1:${sim}, the port of the web chat .* is in use`,
      ),
      expect.stringMatching(
        `^  - AMSFLOW_METRICS_PORT: 127\\.0\\.0\\.1:${metrics}, the port of the metrics .* is in use`,
      ),
    ]);
    for (const line of lines.slice(2)) expect(line).toMatch(/stop it, or set AMSFLOW_\w+ to another port$/);
    expect(exit.out).toBe('');
    expect(groupAlive(exit.pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);

  it('two variables on one port', async () => {
    const [port] = await freePorts(1);
    const problems = await import('../../worker/ports').then(({ plannedPorts, portProblems }) =>
      portProblems(
        plannedPorts({
          AMSFLOW_SIMULATOR_PORT: String(port),
          AMSFLOW_METRICS_PORT: String(port),
          TEMPORAL_ADDRESS: 'x:1',
        }),
      ),
    );
    expect(problems).toEqual([
      `AMSFLOW_METRICS_PORT: ${port} is AMSFLOW_SIMULATOR_PORT too; give each its own port`,
    ]);
  });

  it('the agents file’s bad base URLs and unset token variables, and AMS_BASE_URL, before Temporal starts', async () => {
    const dataDir = join(tmp, 'data-agents');
    const agents = file(
      'agents-bad.json',
      JSON.stringify([
        { agentKey: 'nope', token: 't', baseUrl: 'ftp://nope' },
        { agentKey: 'unset', tokenEnv: 'UNSET_TOKEN_VARIABLE' },
      ]),
    );
    const [dev, ui, metrics] = await freePorts(3);
    const exit = await node('worker/main.ts', [], {
      AMSFLOW_DATA_DIR: dataDir,
      AMSFLOW_AGENTS_FILE: agents,
      AMS_BASE_URL: 'https://ams.example.com',
      AMSFLOW_DEV_SERVER_PORT: String(dev),
      AMSFLOW_DEV_SERVER_UI_PORT: String(ui),
      AMSFLOW_METRICS_PORT: String(metrics),
    });
    expect(exit.code).toBe(1);
    expect(exit.err.trim().split('\n')).toEqual([
      'Invalid amsflow configuration:',
      expect.stringMatching(
        /^ {2}- AMS_BASE_URL: https:\/\/ams\.example\.com\/ does not end in the version prefix \/agent\/v1/,
      ),
      expect.stringMatching(
        `^  - AMSFLOW_AGENTS_FILE ${agents}, entry 1 \\(agent "nope"\\): baseUrl: uses ftp:, not https`,
      ),
      `  - AMSFLOW_AGENTS_FILE ${agents}, entry 2 (agent "unset"): tokenEnv: the variable UNSET_TOKEN_VARIABLE is not set (or empty)`,
    ]);
    expect(exit.out).toBe('');
    expect(existsSync(dataDir)).toBe(false);
    for (const port of [dev, ui, metrics]) expect(await isFree(port)).toBe(true);
  }, 60_000);
});

describe('the amsflow CLI with bad arguments', () => {
  // Nothing may be contacted: a connection to this address would take seconds to fail.
  const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

  it.each([
    [['frobnicate'], /^unknown command "frobnicate"/],
    [['send', 'hi', '--frob'], /^Unknown option '--frob'/],
    [['send', 'hi', '--agent'], /^Option '--agent <value>' argument missing/],
    [['send'], /^send needs the text to send/],
    [['send', 'hi', '--agent', 'no:colons'], /^agent key "no:colons" is not allowed/],
    [['ensure', '--agent', 'a b'], /^agent key "a b" is not allowed/],
    [['state', '--agent=-x'], /^agent key "-x" is not allowed/],
    [
      ['approval', 'request', '--question', 'ok?', '--timeout', '1.5h'],
      /^the timeout: "1.5h" is not a duration/,
    ],
  ])('%j: the problem, the usage, exit 2', async (argv, message) => {
    const { code, out, err } = await run(argv, env);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(message);
    expect(err).toContain('usage:\n  amsflow ensure [--agent <key>]');
  });

  it('checks the agent key from AMSFLOW_AGENT too, before connecting', async () => {
    const { code, err } = await run(['ensure'], { ...env, AMSFLOW_AGENT: 'bad key' });
    expect(code).toBe(2);
    expect(err).toMatch(/^agent key "bad key" is not allowed/);
  });

  it('names a bad AMSFLOW_ENCRYPTION_KEYS without the key, exit 2', async () => {
    const { code, err } = await run(['state'], { ...env, AMSFLOW_ENCRYPTION_KEYS: SECRET });
    expect(code).toBe(2);
    expect(err).toMatch(/AMSFLOW_ENCRYPTION_KEYS/);
    expect(err).not.toContain(SECRET.slice(3));
  });

  it('without a command: the usage, exit 2', async () => {
    const { code, out } = await run([], env);
    expect(code).toBe(2);
    expect(out).toMatch(/^usage:/);
  });

  it.each([
    [['frobnicate'], /^unknown command "frobnicate"\nusage:/],
    [['ensure', '--agent', 'no:colons'], /^agent key "no:colons" is not allowed.*\nusage:/],
  ])('as a process, %j: exit 2 at once, nothing contacted', async (argv, message) => {
    const exit = await node('client/cli.ts', argv, env);
    expect(exit.code).toBe(2);
    expect(exit.err).toMatch(message);
    expect(exit.out).toBe('');
    expect(exit.ms).toBeLessThan(10_000);
  });
});
