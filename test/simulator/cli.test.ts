/** The CLI of the contract: `npm run simulator -- --port <p> [...]` prints one JSON line and serves until stopped. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { SimulatorControl } from '../../simulator';
import { pageOf, AgentHttp } from './support';

const ROOT = path.resolve(__dirname, '..', '..');
const TS_NODE = path.join(ROOT, 'node_modules', '.bin', 'ts-node');

interface Started {
  child: ChildProcessWithoutNullStreams;
  line: { url: string; token: string; chat: string };
  stdout: () => string;
}

/** Starts the CLI and waits for its first stdout line. */
function startCli(command: string, args: string[], detached = false): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, detached, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`CLI printed nothing in 30 s; stderr: ${stderr}`)),
      30_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve({ child, line: JSON.parse(stdout.slice(0, newline)), stdout: () => stdout });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited with ${code}; stderr: ${stderr}`));
    });
  });
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

it('prints one JSON line {url, token, chat}, serves with the given token and creator, and exits 0 on SIGTERM', async () => {
  const { child, line, stdout } = await startCli(TS_NODE, [
    '--transpile-only',
    'simulator/main.ts',
    '--port',
    '0',
    '--token',
    'cli-token',
    '--creator',
    'user:4242',
    '--speed',
    '4',
    '--window-ms',
    '120000',
  ]);
  try {
    expect(Object.keys(line).sort()).toEqual(['chat', 'token', 'url']);
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agent\/v1$/);
    expect(line.chat).toBe(line.url.replace(/agent\/v1$/, ''));
    expect(line.token).toBe('cli-token');
    const agent = new AgentHttp(line.url, line.token);
    const page = pageOf(await agent.poll({ offset: 0, timeout: 0 }));
    expect(page.contacts[0].wa_id).toBe('user:4242');
    // --window-ms 120000 at --speed 4: a full send window frees up within 30 real seconds.
    for (let i = 0; i < 12; i++) await agent.send({ to: 'user:4242', type: 'text', text: { body: 'x' } });
    const over = await agent.send({ to: 'user:4242', type: 'text', text: { body: 'x' } });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(20);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(30);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited(child)).toBe(0);
  expect(stdout().trim().split('\n')).toHaveLength(1);
});

it('runs through `npm run simulator --` on a chosen port and stops on SIGINT', async () => {
  const { child, line } = await startCli('npm', ['run', '-s', 'simulator', '--', '--port', '0'], true);
  try {
    expect(line.token).toMatch(/^sim-[0-9a-f]{24}$/);
    const res = await fetch(`${line.url}/updates?offset=0&timeout=0`, {
      headers: { authorization: `Bearer ${line.token}` },
    });
    expect(res.status).toBe(200);
  } finally {
    // npm runs the CLI in a child process: signal the whole group.
    process.kill(-child.pid!, 'SIGINT');
  }
  await exited(child);
  await expect(fetch(`${line.url}/updates`)).rejects.toThrow();
});

it('serves a new random token each start without --token: the old fixed default sim-token is refused', async () => {
  const args = ['--transpile-only', 'simulator/main.ts', '--port', '0'];
  const [first, second] = await Promise.all([startCli(TS_NODE, args), startCli(TS_NODE, args)]);
  try {
    for (const { line } of [first, second]) {
      expect(line.token).toMatch(/^sim-[0-9a-f]{24}$/);
      const guessed = await new AgentHttp(line.url, 'sim-token').poll({ offset: 0, timeout: 0 });
      expect(guessed.status).toBe(401);
      expect((await new AgentHttp(line.url, line.token).poll({ offset: 0, timeout: 0 })).status).toBe(200);
    }
    expect(first.line.token).not.toBe(second.line.token);
  } finally {
    first.child.kill('SIGTERM');
    second.child.kill('SIGTERM');
  }
  expect(await exited(first.child)).toBe(0);
  expect(await exited(second.child)).toBe(0);
});

it('counts a message unread past the grace given by --unread-grace-ms', async () => {
  const { child, line } = await startCli(TS_NODE, [
    '--transpile-only',
    'simulator/main.ts',
    '--port',
    '0',
    '--unread-grace-ms',
    '1000',
  ]);
  try {
    const control = new SimulatorControl(line.chat);
    await control.humanText('hello');
    pageOf(await new AgentHttp(line.url, line.token).poll({ offset: 0, timeout: 0 }));
    // 1001 simulated ms is past this grace and far within the default 10 s.
    await control.advanceClock(1001);
    expect((await control.transcript()).counts.unreadPastGrace).toBe(1);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited(child)).toBe(0);
});

it('exits 2 with a usage message on a bad option', async () => {
  const child = spawn(TS_NODE, ['--transpile-only', 'simulator/main.ts', '--bogus'], { cwd: ROOT });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await exited(child)).toBe(2);
  expect(stderr).toContain('usage:');
});
