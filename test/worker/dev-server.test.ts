/**
 * The embedded dev server's lifetime: it dies with the process that started it, even one killed
 * with SIGKILL, stays out of that process's group (Ctrl-C), stops on `stop()`, and a port that is
 * already taken is refused with one clear error instead of a silent attach.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { scrapeServer } from '../../bench/server-cost';
import { waitFor } from '../support/temporal';
import { freePort, PortInUseError, startDevServer } from '../../worker/dev-server';

const PARENT = resolve(__dirname, 'dev-server-parent.ts');

function cliPath(): string {
  const path = process.env.TEMPORAL_CLI_PATH;
  if (!path) throw new Error('TEMPORAL_CLI_PATH is set by the jest global setup');
  return path;
}

/** Whether a process runs; a zombie (exited, not reaped yet) does not count. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true; // No /proc (macOS): signal 0 is all there is.
  }
}

/** The process group of a process, on Linux. */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
}

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The parent's one JSON line on stdout; rejects if it exits or stays silent too long. */
function report(
  parent: ChildProcess,
  timeoutMs: number,
): Promise<{ port: number; pid: number; watchdogPid: number }> {
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`no report after ${timeoutMs} ms: ${err}`)), timeoutMs);
    parent.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    parent.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      done(JSON.parse(out.split('\n')[0]));
    });
    parent.once('exit', (code) => fail(new Error(`parent exited (${code}) before reporting: ${err}`)));
  });
}

function listen(port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

describe('embedded dev server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-dev-server-'));

  it('dies with its parent when the parent is SIGKILLed, and a new start refuses its port meanwhile', async () => {
    const parent = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', PARENT, join(dir, 'killed.db')],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let watchdogPid: number | undefined;
    try {
      const started = await report(parent, 90_000);
      watchdogPid = started.watchdogPid;
      expect(alive(started.pid)).toBe(true);
      expect(await listening(started.port)).toBe(true);
      if (process.platform === 'linux') {
        // Its own group: a Ctrl-C to the parent's group does not reach it.
        expect(processGroup(started.pid)).toBe(started.watchdogPid);
        expect(processGroup(started.pid)).not.toBe(parent.pid);
      }

      // The next worker on the same port gets an error, not the old server.
      const again = startDevServer({
        cliPath: cliPath(),
        dbFile: join(dir, 'again.db'),
        port: started.port,
        portWaitMs: 500,
      });
      await expect(again).rejects.toThrow(PortInUseError);
      await expect(again).rejects.toThrow(`127.0.0.1:${started.port}, its gRPC port, is already in use`);

      // The parent's whole group, which holds neither the watchdog nor the server.
      process.kill(-parent.pid!, 'SIGKILL');
      await waitUntil(`closed port ${started.port}`, async () => !(await listening(started.port)), 30_000);
      await waitUntil(`gone: server pid ${started.pid}`, () => !alive(started.pid), 30_000);
      await waitUntil(`gone: watchdog pid ${started.watchdogPid}`, () => !alive(started.watchdogPid), 30_000);
    } finally {
      if (alive(parent.pid!)) process.kill(-parent.pid!, 'SIGKILL');
      if (watchdogPid && alive(watchdogPid)) process.kill(-watchdogPid, 'SIGKILL');
    }
  }, 150_000);

  it('refuses a gRPC or UI port that something already listens on, naming it', async () => {
    const port = await freePort();
    const taken = await listen(port);
    try {
      const start = startDevServer({
        cliPath: cliPath(),
        dbFile: join(dir, 'taken.db'),
        port,
        uiPort: false,
        portWaitMs: 300,
      });
      await expect(start).rejects.toMatchObject({ name: 'PortInUseError', port, role: 'gRPC' });
      await expect(start).rejects.toThrow(
        new RegExp(
          `127\\.0\\.0\\.1:${port}, its gRPC port, is already in use.*TEMPORAL_ADDRESS=127\\.0\\.0\\.1:${port}`,
        ),
      );
      const ui = startDevServer({
        cliPath: cliPath(),
        dbFile: join(dir, 'taken.db'),
        uiPort: port,
        portWaitMs: 0,
      });
      await expect(ui).rejects.toMatchObject({ name: 'PortInUseError', port, role: 'web UI' });
    } finally {
      taken.close();
    }
  });

  it('says so when the CLI cannot be run', async () => {
    const missing = join(dir, 'no-such-temporal');
    const start = startDevServer({ cliPath: missing, dbFile: join(dir, 'missing.db'), uiPort: false });
    await expect(start).rejects.toThrow(`Temporal dev server did not start: cannot run ${missing}`);
  });

  it("takes a port released while it waits, serves its own metrics when asked, ends stopping workers' polls, and stop() ends the server and its watchdog", async () => {
    const port = await freePort();
    const predecessor = await listen(port);
    const starting = startDevServer({
      cliPath: cliPath(),
      dbFile: join(dir, 'stopped.db'),
      port,
      uiPort: false,
      metricsPort: 0,
      portWaitMs: 30_000,
    });
    setTimeout(() => predecessor.close(), 500);
    const server = await starting;
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(alive(server.pid)).toBe(true);
    // The server's own counters, as the bench reads them (bench/server-cost.ts): a workflow started
    // is one action and database writes in its namespace.
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const connection = await Connection.connect({ address: server.address });
    try {
      // A stopping worker's polls for tasks are ended by the server (DEFAULT_DYNAMIC_CONFIG): the
      // namespace says so, and the SDK's worker relies on it only then.
      const { namespaceInfo } = await connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(namespaceInfo?.capabilities?.workerPollCompleteOnShutdown).toBe(true);
      await new Client({ connection }).workflow.start('nothingRunsIt', {
        taskQueue: 'nobody',
        workflowId: 'counted',
      });
    } finally {
      await connection.close();
    }
    // The server reports its counters to the scrape every second or so (tally's interval).
    const counters = await waitFor('the start counted', async () => {
      const now = await scrapeServer(server.metricsUrl!);
      return now.actions.grpc_StartWorkflowExecution >= 1 && now;
    });
    expect(counters.actions.grpc_StartWorkflowExecution).toBe(1);
    expect(counters.writes.CreateWorkflowExecution).toBeGreaterThanOrEqual(1);
    await server.stop();
    // Resolved only once both have exited: no polling needed.
    expect(alive(server.pid)).toBe(false);
    expect(alive(server.watchdogPid)).toBe(false);
    expect(await listening(port)).toBe(false);
  }, 90_000);
});

describe('freePort', () => {
  it('chooses ports below the ephemeral ranges, each one listenable', async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThanOrEqual(32_767);
      const server = createServer();
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(port, '127.0.0.1', done);
      });
      await new Promise((done) => server.close(done));
    }
  });
});
