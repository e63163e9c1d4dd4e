/**
 * A bad configuration, as a process (the long tier: real worker and CLI processes): the worker
 * entry (`npm start`'s) with a representative bad variable, with every port it needs taken, and
 * with an agents file's bad base URLs exits 1 at once with one message naming the problem, leaves
 * no process, takes no port and makes no data dir; the CLI's entry exits 2 with the problem and
 * the usage, contacting nothing. Every variable's check itself, and the CLI's in process, are
 * test/worker/bad-config.test.ts's (the main tier).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SECRET = 'k1:c2VjcmV0LWtleS1tYXRlcmlhbA==';
const tmp = mkdtempSync(join(tmpdir(), 'amsflow-bad-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

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

describe('the amsflow CLI with bad arguments, as a process', () => {
  // Nothing may be contacted: a connection to this address would take seconds to fail.
  const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

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
