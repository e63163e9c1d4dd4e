/**
 * A fleet changes while it runs (worker/fleet-reload.ts): the difference of two agents files
 * (pure), and a running worker process (`worker/main.ts`, on the shared dev server, against the
 * simulator over real HTTP) that takes an agent added to its agents file and a removed agent
 * without a restart, on the file's change and on SIGHUP, saying so in its log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { AgentConfig } from '../../worker/agents-file';
import { describeDiff, fleetDiff } from '../../worker/fleet-reload';
import { devServerAddress, waitFor } from '../support/temporal';
import { collectLines } from '../support/output-lines';

jest.setTimeout(180_000);

const agent = (agentKey: string, token: string, extra: Partial<AgentConfig> = {}): AgentConfig => ({
  agentKey,
  token,
  ...extra,
});

describe('the difference between two agents files', () => {
  it('adds, replaces (token or service), removes, and names settings that need a fresh start', () => {
    const before = [agent('a', 't1'), agent('b', 't2'), agent('c', 't3'), agent('d', 't4')];
    const after = [
      agent('a', 't1'),
      agent('b', 't2-new'),
      agent('d', 't4', { timeZone: 'Europe/Berlin' }),
      agent('e', 't5'),
    ];
    const diff = fleetDiff(before, after);
    expect(diff.added.map((a) => a.agentKey)).toEqual(['e']);
    expect(diff.replaced.map((a) => a.agentKey)).toEqual(['b']);
    expect(diff.removed).toEqual(['c']);
    expect(diff.restartOnly).toEqual(['d']);
    const line = describeDiff(diff)!;
    expect(line).toBe(
      'added e; new token or service for b; removed c (they stop polling); settings of d changed (they apply when the agent starts afresh)',
    );
    // Never a token in the line.
    for (const token of ['t1', 't2', 't2-new', 't5']) expect(line).not.toContain(token);
    expect(describeDiff(fleetDiff(before, before))).toBeUndefined();
  });
});

describe('a running worker follows its agents file', () => {
  let dir: string;
  let sim: RunningSimulator;
  let worker: ChildProcess | undefined;
  const id = randomUUID().slice(0, 6);
  const a = { id: `fa${id}`, token: `token-a-${randomUUID()}`, creator: 'user:1' };
  const b = { id: `fb${id}`, token: `token-b-${randomUUID()}`, creator: 'user:2' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'amsflow-fleet-'));
    sim = await startSimulator({ port: 0, agents: [a, b] });
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGINT');
      await new Promise((r) => worker!.once('exit', r));
    }
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const writeAgents = (agents: { agentKey: string; token: string }[]) =>
    writeFileSync(join(dir, 'agents.json'), JSON.stringify(agents));
  const echoed = (agentKey: string, text: string) =>
    waitFor(
      `${agentKey} to answer ${text}`,
      async () => {
        const sent = (await sim.control.transcript({ agent: agentKey })).sent;
        return sent.some((s) => (s.body as { text?: { body?: string } }).text?.body === text);
      },
      { timeoutMs: 60_000 },
    );

  it('takes an added agent, a new token and a removed agent without a restart, and logs each', async () => {
    writeAgents([{ agentKey: a.id, token: a.token }]);
    const lines: string[] = [];
    worker = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'worker/main.ts'], {
      cwd: join(__dirname, '..', '..'),
      env: {
        ...process.env,
        AMSFLOW_AGENTS_FILE: join(dir, 'agents.json'),
        AMS_BASE_URL: sim.url,
        TEMPORAL_ADDRESS: devServerAddress(),
        AMSFLOW_TASK_QUEUE: `fleet-${id}`,
        AMSFLOW_METRICS_PORT: '0',
        AMSFLOW_LOG_LEVEL: 'info',
        AMSFLOW_TUNING: JSON.stringify({ pollTimeoutSeconds: 2 }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    collectLines(worker, lines);
    await waitFor('the worker to run', () => lines.some((l) => l.includes('amsflow: running')), {
      timeoutMs: 90_000,
    });
    await sim.control.humanText('echo one', { agent: a.id });
    await echoed(a.id, 'one');

    // Added to the file: served at once, its workflow started.
    writeAgents([
      { agentKey: a.id, token: a.token },
      { agentKey: b.id, token: b.token },
    ]);
    await waitFor('the reload line', () =>
      lines.find((l) => l.includes(`agents file reloaded: added ${b.id}`)),
    );
    await sim.control.humanText('echo two', { agent: b.id });
    await echoed(b.id, 'two');

    // B removed, by SIGHUP right after the write (the watch would see it too: one line either way).
    writeAgents([{ agentKey: a.id, token: a.token }]);
    worker.kill('SIGHUP');
    await waitFor('the removal line', () => lines.find((l) => l.includes(`removed ${b.id}`)));
    expect(lines.filter((l) => l.includes(`removed ${b.id}`))).toHaveLength(1);

    // A new token takes effect at once: a wrong one is refused by the service (401) and stops the
    // agent; the right one again resumes it, and it answers.
    writeAgents([{ agentKey: a.id, token: `token-wrong-${id}` }]);
    await waitFor('the new-token line', () =>
      lines.find((l) => l.includes(`new token or service for ${a.id}`)),
    );
    await sim.control.humanText('echo refused', { agent: a.id });
    await waitFor(
      'the agent stopped by the refused token',
      () => lines.find((l) => l.includes(`agent ${a.id} stopped polling (unauthorized)`)),
      { timeoutMs: 60_000 },
    );
    writeAgents([{ agentKey: a.id, token: a.token }]);
    await echoed(a.id, 'refused');

    // A file with a mistake changes nothing, and says why.
    writeFileSync(join(dir, 'agents.json'), '[{ "agentKey": "x" }');
    await waitFor('the refusal line', () => lines.find((l) => l.includes('not applied')));
    await sim.control.humanText('echo three', { agent: a.id });
    await echoed(a.id, 'three');
    // No token ever in the log.
    for (const token of [a.token, b.token]) expect(lines.join('\n')).not.toContain(token);
  });
});
