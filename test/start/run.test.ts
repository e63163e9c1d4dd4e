/**
 * `npm start`'s handling of its data dir and its banner (worker/run.ts), short of starting
 * Temporal: the lock on the data dir, starts refused before anything runs (a port in use, an
 * unusable chat file) and the banner's words for a fresh and a resumed start.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatorStateError } from '../../simulator';
import { loadConfig } from '../../worker/config';
import { freePort, PortInUseError } from '../../worker/dev-server';
import {
  botCommands,
  DataDirInUseError,
  formatBanner,
  lockDataDir,
  runAmsflow,
  type RunningAmsflow,
} from '../../worker/run';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const listen = (port: number) =>
  new Promise<Server>((resolve) => {
    const server = createServer();
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('the data dir lock (amsflow.pid)', () => {
  it('is taken and released; a second run is refused while the first lives', async () => {
    const release = lockDataDir(dir);
    const file = join(dir, 'amsflow.pid');
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(file)).toBe(false);

    // Another live process holds it.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(file, `${other.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
      expect(() => lockDataDir(dir)).toThrow(
        new RegExp(`Another amsflow \\(pid ${other.pid}\\) is using the data`),
      );
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
    // The same file, left by a run that was killed: taken over.
    const again = lockDataDir(dir);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    again();
  });
});

describe('a start refused before anything runs', () => {
  const config = async (env: NodeJS.ProcessEnv = {}) =>
    loadConfig({
      AMSFLOW_DATA_DIR: dir,
      AMSFLOW_SIMULATOR_PORT: String(await freePort()),
      AMSFLOW_DEV_SERVER_PORT: String(await freePort()),
      AMSFLOW_DEV_SERVER_UI_PORT: String(await freePort()),
      ...env,
    });

  it('a chat file that cannot be read: names it and says to delete the demo folder', async () => {
    const file = join(dir, 'demo', 'simulator.json');
    mkdirSync(join(dir, 'demo'));
    writeFileSync(file, '{"format": "amsflow-simulator-state", "version": 1, "agents": {');
    const started = runAmsflow(await config(), () => undefined);
    await expect(started).rejects.toThrow(SimulatorStateError);
    await expect(started).rejects.toThrow(`Cannot resume the simulator from ${file}: it is not valid JSON (`);
    await expect(started).rejects.toThrow(`To start afresh, stop amsflow and delete ${join(dir, 'demo')}`);
    expect(existsSync(join(dir, 'amsflow.pid'))).toBe(false);
  });

  it('the simulator port in use: PortInUseError naming AMSFLOW_SIMULATOR_PORT', async () => {
    const port = await freePort();
    const taken = await listen(port);
    try {
      const started = runAmsflow(await config({ AMSFLOW_SIMULATOR_PORT: String(port) }), () => undefined);
      await expect(started).rejects.toMatchObject({ name: 'PortInUseError', port, role: 'simulator' });
      await expect(started).rejects.toThrow(PortInUseError);
      await expect(started).rejects.toThrow(
        /its port \(web chat and service API\), is already in use.*AMSFLOW_SIMULATOR_PORT/,
      );
    } finally {
      taken.close();
    }
  }, 20_000);

  it('Temporal data without the chat they belong to are not resumed', async () => {
    mkdirSync(join(dir, 'demo'));
    const db = join(dir, 'demo', 'temporal.db');
    writeFileSync(db, 'agent workflows holding offsets of a chat that is gone');
    const port = await freePort();
    const taken = await listen(port);
    const lines: string[] = [];
    try {
      // Stopped at the dev server's port, after the decision.
      const started = runAmsflow(await config({ AMSFLOW_DEV_SERVER_PORT: String(port) }), (l) =>
        lines.push(l),
      );
      await expect(started).rejects.toMatchObject({ name: 'PortInUseError', port, role: 'gRPC' });
    } finally {
      taken.close();
    }
    expect(existsSync(db)).toBe(false);
    expect(lines.join('\n')).toContain("so the demo's Temporal data start afresh too");
    // The chat the failed start began is not left for the next start to "resume".
    expect(existsSync(join(dir, 'demo', 'simulator.json'))).toBe(false);
    expect(existsSync(join(dir, 'demo'))).toBe(true);
  }, 20_000);

  it('a first start that fails leaves no data dir; a resumed one that fails keeps what it found', async () => {
    const fresh = join(dir, 'fresh');
    const port = await freePort();
    const taken = await listen(port);
    try {
      // Fails at the dev server's port, after the simulator has started and written its chat.
      const first = runAmsflow(
        await config({ AMSFLOW_DATA_DIR: fresh, AMSFLOW_DEV_SERVER_PORT: String(port) }),
        () => undefined,
      );
      await expect(first).rejects.toMatchObject({ name: 'PortInUseError', port });
      expect(existsSync(fresh)).toBe(false);

      // A previous run's chat is kept, however the start goes.
      mkdirSync(join(dir, 'demo'));
      const chat = join(dir, 'demo', 'simulator.json');
      writeFileSync(
        chat,
        JSON.stringify({
          format: 'amsflow-simulator-state',
          version: 1,
          savedAt: 0,
          simNow: 0,
          clean: true,
          agents: {},
        }),
      );
      const resumed = runAmsflow(await config({ AMSFLOW_DEV_SERVER_PORT: String(port) }), () => undefined);
      await expect(resumed).rejects.toMatchObject({ name: 'PortInUseError', port });
      expect(existsSync(chat)).toBe(true);
    } finally {
      taken.close();
    }
  }, 30_000);
});

describe('the banner', () => {
  const running = (over: Partial<RunningAmsflow>): RunningAmsflow => ({
    temporalAddress: '127.0.0.1:7233',
    temporalUiUrl: 'http://127.0.0.1:8233',
    chatUrl: 'http://127.0.0.1:8080/',
    taskQueue: 'amsflow',
    agents: [{ agentKey: 'default', baseUrl: 'http://127.0.0.1:8080/agent/v1' }],
    resume: {
      dataDir: '/d/.amsflow',
      demoDir: '/d/.amsflow/demo',
      temporalDb: '/d/.amsflow/demo/temporal.db',
      temporalResumed: false,
      chat: { file: '/d/.amsflow/demo/simulator.json', resumed: false, messages: 0, unclean: false },
    },
    done: Promise.resolve(),
    shutdown: () => Promise.resolve(),
    ...over,
  });

  it('lists the reference bot’s commands', async () => {
    const commands = await botCommands(loadConfig({}).workflowsPath);
    expect(commands.map((c) => c.command)).toEqual(expect.arrayContaining(['echo <text>', 'signup']));
    expect(commands.every((c) => c.description.length > 0)).toBe(true);
  });

  it('falls back to a bot’s HELP_TEXT, and to nothing', async () => {
    const bot = join(dir, 'bot.js');
    writeFileSync(
      bot,
      "exports.HELP_TEXT = 'I know these commands:\\n• ping — I answer pong\\n• help — this';",
    );
    expect(await botCommands(bot)).toEqual([
      { command: 'ping', description: 'I answer pong' },
      { command: 'help', description: 'this' },
    ]);
    expect(await botCommands(join(dir, 'missing.js'))).toEqual([]);
  });

  it('says fresh or resumed, with the chat and UI addresses and where the data are', () => {
    const commands = [{ command: 'echo <text>', description: 'I repeat <text>' }];
    const fresh = formatBanner(running({}), commands);
    expect(fresh).toContain('amsflow: fresh start: a new chat');
    expect(fresh).toMatch(/^ {2}web chat {6}http:\/\/127\.0\.0\.1:8080\/$/m);
    expect(fresh).toMatch(/^ {2}Temporal UI {3}http:\/\/127\.0\.0\.1:8233$/m);
    expect(fresh).toMatch(/^ {2}bot commands {2}echo <text> {2}I repeat <text>$/m);
    expect(fresh).toMatch(/^ {2}model {9}none \(AMSFLOW_MODEL=openai:<model> with OPENAI_API_KEY adds one/m);
    expect(formatBanner(running({ model: 'openai:gpt-4o-mini' }))).toMatch(
      /^ {2}model {9}openai:gpt-4o-mini$/m,
    );
    expect(fresh).toContain(
      '/d/.amsflow/demo: the next npm start resumes from it; delete it to start afresh',
    );
    expect(fresh.trimEnd().split('\n').at(-1)).toBe('amsflow: running; Ctrl-C stops everything');

    const base = running({});
    const resumed = formatBanner({
      ...base,
      resume: {
        ...base.resume,
        temporalResumed: true,
        chat: { file: 'f', resumed: true, messages: 12, unclean: true },
      },
    });
    expect(resumed).toContain('amsflow: resuming: 12 messages in the chat');
    expect(resumed).toContain('the last run did not stop cleanly');
    expect(resumed).not.toContain('were not resumed');

    const real = formatBanner(
      running({
        chatUrl: undefined,
        agents: [{ agentKey: 'default', baseUrl: 'https://ams.example/agent/v1' }],
        resume: { dataDir: '/d/.amsflow', temporalDb: '/d/.amsflow/temporal.db', temporalResumed: true },
      }),
    );
    expect(real).toContain('serving the real service: agent "default" at https://ams.example/agent/v1');
    expect(real).toMatch(
      /^ {2}data {10}\/d\/\.amsflow\/temporal\.db \(Temporal, resumed\): the next start resumes/m,
    );
    expect(real).not.toContain('web chat');
  });
});
