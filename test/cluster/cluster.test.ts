/**
 * The compose topology, natively: PostgreSQL, the Temporal server built from its Go module (the
 * version docker-compose.yml pins) with the compose file's config, and two worker processes for
 * the same agent against the simulator. One worker is SIGKILLed while replies go out, then the
 * Temporal server is SIGKILLed and started again on the same data (with messages arriving while
 * it is down), and every message is answered exactly once. Needs `npm run cluster:setup`; fails, never skips,
 * without it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { CLUSTER_VERSIONS, ClusterToolsMissingError, findClusterTools } from '../../scripts/cluster-tools';
import { bundle, waitFor } from '../support/temporal';
import { startNativeCluster, type NativeCluster } from '../../chaos/cluster/native-cluster';
import { scaledTuning } from '../../bench/scaled-tuning';
import { collectLines } from '../support/output-lines';

const projectRoot = resolve(__dirname, '..', '..');
const WINDOW_MS = 1000;
const agentKey = `c${randomUUID().slice(0, 8)}`;
const token = `token-${randomUUID()}`;

interface WorkerProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<void>;
}

let cluster: NativeCluster | undefined;
let connection: Connection | undefined;
let client: Client | undefined;
let sim: RunningSimulator | undefined;
let bundleDir: string | undefined;
const workers: WorkerProcess[] = [];

function startWorker(name: string, bundlePath: string): WorkerProcess {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'worker/main.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      AMS_TOKEN: token,
      AMS_BASE_URL: sim!.url,
      AMSFLOW_AGENT: agentKey,
      TEMPORAL_ADDRESS: cluster!.address,
      TEMPORAL_NAMESPACE: cluster!.namespace,
      AMSFLOW_TASK_QUEUE: `cluster-${agentKey}`,
      AMSFLOW_WORKFLOW_BUNDLE: bundlePath,
      AMSFLOW_FLEET_AGENTS: '1',
      // Two workers on one host: each takes a free port for /metrics.
      AMSFLOW_METRICS_PORT: '0',
      AMSFLOW_LIMITS: JSON.stringify({ windowMs: WINDOW_MS }),
      AMSFLOW_TUNING: JSON.stringify(scaledTuning(WINDOW_MS)),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  collectLines(child, output);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const worker = { name, child, output, exited };
  workers.push(worker);
  return worker;
}

async function running(worker: WorkerProcess): Promise<void> {
  await waitFor(
    `worker ${worker.name} to report running`,
    () => {
      if (worker.child.exitCode !== null) throw new Error(`exited early:\n${worker.output.join('\n')}`);
      return worker.output.some((line) => line.includes('amsflow: running'));
    },
    { timeoutMs: 90_000, intervalMs: 100 },
  );
}

async function human(text: string): Promise<string> {
  const { id } = await sim!.control.human({ agent: agentKey, type: 'text', text: { body: text } });
  return id;
}

type Reply = { text?: { body?: string }; context?: { message_id?: string } };

async function replies(): Promise<Reply[]> {
  const transcript = await sim!.control.transcript({ agent: agentKey });
  return transcript.sent.map((s) => s.body as Reply);
}

/** The worker whose process runs the agent workflow's long poll (from the activity's worker identity). */
async function pollingWorker(candidates: WorkerProcess[]): Promise<WorkerProcess> {
  const handle = client!.workflow.getHandle(`agent:${agentKey}`);
  return waitFor('the worker running the poll activity', async () => {
    const { raw } = await handle.describe();
    const identities = (raw.pendingActivities ?? []).map((a) => a.lastWorkerIdentity ?? '');
    return candidates.find((w) => identities.some((id) => id.startsWith(`${w.child.pid}@`)));
  });
}

/** The schema version the SQL tool left in `database` (read with psql). */
function schemaVersion(database: string): string {
  const { postgres, tools } = cluster!;
  return execFileSync(
    join(tools.postgresBin, 'psql'),
    [
      ...['-h', postgres.host, '-p', String(postgres.port), '-U', postgres.user, '-d', database],
      ...['-tAc', 'SELECT curr_version FROM schema_version'],
    ],
    { encoding: 'utf8' },
  ).trim();
}

/** Waits until every message in `sent` (text → id) has a reply, with what is missing on failure. */
async function allAnswered(sent: Map<string, string>, timeoutMs: number): Promise<void> {
  let missing: string[] = [];
  await waitFor(
    `${sent.size} replies`,
    async () => {
      const texts = new Set((await replies()).map((r) => r.text?.body));
      missing = [...sent.keys()].filter((text) => !texts.has(text));
      return missing.length === 0;
    },
    { timeoutMs, intervalMs: 250 },
  ).catch((err: Error) => {
    const tails = workers.map((w) => `${w.name}:\n${w.output.slice(-10).join('\n')}`).join('\n');
    throw new Error(
      `${err.message}\nmissing: ${missing.join(', ')}\n${tails}\nserver:\n${cluster!.server.output.slice(-15).join('\n')}`,
    );
  });
}

beforeAll(async () => {
  const started = Date.now();
  cluster = await startNativeCluster();
  console.log(`native cluster up in ${Date.now() - started} ms: ${JSON.stringify(cluster.timings)}`);
  connection = await openConnection({ address: cluster.address });
  client = new Client({ connection, namespace: cluster.namespace });
  sim = await startSimulator({
    port: 0,
    limits: { windowMs: WINDOW_MS },
    agents: [{ id: agentKey, token, creator: 'user:4242', creatorName: 'Tester' }],
  });
  const { code } = await bundle(require.resolve('../../examples/reference/bot'));
  bundleDir = mkdtempSync(join(tmpdir(), 'amsflow-cluster-bundle-'));
  writeFileSync(join(bundleDir, 'workflows.js'), code);
}, 180_000);

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await sim?.close();
  await connection?.close();
  await cluster?.close();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('the compose topology, natively (PostgreSQL + Temporal server from its Go module)', () => {
  it("sets up the pinned schema versions with the server's own SQL tool", () => {
    expect(schemaVersion('temporal')).toBe(CLUSTER_VERSIONS.schemaVersions.temporal);
    expect(schemaVersion('temporal_visibility')).toBe(CLUSTER_VERSIONS.schemaVersions.visibility);
  });

  it('fails loudly, naming each missing tool, when the setup has not run', () => {
    const missing = () =>
      findClusterTools({ AMSFLOW_CLUSTER_TOOLS_DIR: join(tmpdir(), 'amsflow-no-such-dir') });
    expect(missing).toThrow(ClusterToolsMissingError);
    expect(missing).toThrow(/Temporal server: .*\n.*Temporal SQL tool: [\s\S]*npm run cluster:setup/);
  });

  it('answers every message exactly once across a worker SIGKILL and a Temporal server crash and restart', async () => {
    const started = Date.now();
    const bundlePath = join(bundleDir!, 'workflows.js');
    const [a, b] = [startWorker('A', bundlePath), startWorker('B', bundlePath)];
    await Promise.all([running(a), running(b)]);

    const sent = new Map<string, string>();
    const say = async (text: string) => sent.set(text, await human(`echo ${text}`));

    // Phase 1: a burst; the worker running the poll dies once replies are going out, the other
    // carries on alone.
    for (let i = 1; i <= 20; i++) await say(`one-${i}`);
    await waitFor('the first replies', async () => (await replies()).length >= 3, {
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    const victim = await pollingWorker([a, b]);
    const repliesAtKill = (await replies()).length;
    victim.child.kill('SIGKILL');
    await victim.exited;
    await allAnswered(sent, 90_000);

    // Phase 2: the server crashes (SIGKILL), messages arrive meanwhile, it starts on the same data.
    const survivor = victim === a ? b : a;
    const agent = client!.workflow.getHandle(`agent:${agentKey}`);
    const runBefore = (await agent.describe()).runId;
    await cluster!.server.stop(0);
    for (let i = 1; i <= 5; i++) await say(`down-${i}`);
    await cluster!.server.start();
    const c = startWorker('C', bundlePath);
    await running(c);
    for (let i = 1; i <= 10; i++) await say(`two-${i}`);
    await allAnswered(sent, 120_000);

    // The same agent workflow run went on (the data survived), and the surviving worker rode
    // out the restart.
    expect((await agent.describe()).runId).toBe(runBefore);
    expect(survivor.child.exitCode).toBeNull();
    expect(repliesAtKill).toBeLessThan(20);
    const all = await replies();
    const byText = new Map<string, Reply[]>();
    for (const reply of all)
      byText.set(reply.text?.body ?? '', [...(byText.get(reply.text?.body ?? '') ?? []), reply]);
    for (const [text, id] of sent) {
      expect({ text, replies: byText.get(text)?.length }).toEqual({ text, replies: 1 });
      expect(byText.get(text)![0].context?.message_id).toBe(id);
    }
    expect(all).toHaveLength(sent.size);
    const transcript = await sim!.control.transcript({ agent: agentKey });
    expect(transcript.counts.overlappingSends).toBe(0);
    console.log(`cluster scenario: ${sent.size} messages answered once each in ${Date.now() - started} ms`);
  }, 300_000);
});
