/**
 * A rollout on the native cluster (PostgreSQL + the Temporal server built from its Go module):
 * build 1 of a bot asks "What is your name?" and its signup is left waiting; `amsflow replay`
 * fails build 2 (an incompatible change to the signup's steps) against build 1's histories and
 * passes a compatible one; build 2's workers start, and it is promoted. The waiting signup
 * completes on build 1 (its worker still runs), a new signup runs build 2's steps, the agent
 * workflow moves to build 2 without losing its offset, and `amsflow deploy status` shows build 1
 * drained, after which its worker (AMSFLOW_EXIT_WHEN_DRAINED=1) stops by itself.
 * Needs `npm run cluster:setup`; fails, never skips, without it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { bundleBot } from '../../worker/bot-bundle';
import { codeDigest } from '../../worker/build-id';
import { deploymentStatus } from '../../client/deployments';
import { getAgentState } from '../../client/agents';
import { scaledTuning } from '../../bench/scaled-tuning';
import { waitFor } from '../support/temporal';
import { run as cli } from '../client/cli-runner';
import { startNativeCluster, type NativeCluster } from '../../chaos/cluster/native-cluster';
import { startWorkerProcess, whenRunning, type WorkerProcess } from './worker-process';

const WINDOW_MS = 1000;
const agentKey = `d${randomUUID().slice(0, 8)}`;
const token = `token-${randomUUID()}`;
const taskQueue = `deploys-${agentKey}`;
const bot = (name: string) => resolve(__dirname, 'bots', `${name}.ts`);

let cluster: NativeCluster | undefined;
let connection: Connection | undefined;
let client: Client | undefined;
let sim: RunningSimulator | undefined;
let dir: string | undefined;
const workers: WorkerProcess[] = [];

/** A worker of the bundle at `bundlePath` (its build id: the bundle's digest). */
function startWorker(name: string, bundlePath: string, extra: NodeJS.ProcessEnv = {}): WorkerProcess {
  const worker = startWorkerProcess(name, {
    AMS_TOKEN: token,
    AMS_BASE_URL: sim!.url,
    AMSFLOW_AGENT: agentKey,
    TEMPORAL_ADDRESS: cluster!.address,
    TEMPORAL_NAMESPACE: cluster!.namespace,
    AMSFLOW_TASK_QUEUE: taskQueue,
    AMSFLOW_WORKFLOW_BUNDLE: bundlePath,
    AMSFLOW_FLEET_AGENTS: '1',
    AMSFLOW_METRICS_PORT: '0',
    AMSFLOW_LOG_FORMAT: 'pretty',
    AMSFLOW_LIMITS: JSON.stringify({ windowMs: WINDOW_MS }),
    AMSFLOW_TUNING: JSON.stringify(scaledTuning(WINDOW_MS)),
    ...extra,
  });
  workers.push(worker);
  return worker;
}

/** Bundles a bot module as the worker does, into a file; answers its path and build id. */
async function bundleFile(name: string): Promise<{ path: string; buildId: string }> {
  const { code } = await bundleBot({ workflowsPath: bot(name) });
  const path = join(dir!, `${name}.js`);
  writeFileSync(path, code);
  return { path, buildId: codeDigest(code) };
}

async function human(text: string): Promise<string> {
  const { id } = await sim!.control.human({ agent: agentKey, type: 'text', text: { body: text } });
  return id;
}

async function botTexts(): Promise<string[]> {
  const transcript = await sim!.control.transcript({ agent: agentKey });
  return transcript.sent.map((s) => (s.body as { text?: { body?: string } }).text?.body ?? '');
}

/** Waits until the bot's last message is `text`. */
async function botSays(text: string): Promise<void> {
  await waitFor(`the bot to say ${JSON.stringify(text)}`, async () => (await botTexts()).at(-1) === text, {
    timeoutMs: 30_000,
    intervalMs: 100,
  }).catch((err: Error) => {
    const tails = workers.map((w) => `${w.name}:\n${w.output.slice(-12).join('\n')}`).join('\n');
    throw new Error(`${err.message}\n${tails}`);
  });
}

/** The build a workflow's last task ran on. */
async function buildOf(workflowId: string): Promise<string | undefined> {
  const { raw } = await client!.workflow.getHandle(workflowId).describe();
  return raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}

const cliEnv = () => ({ TEMPORAL_ADDRESS: cluster!.address, AMSFLOW_TASK_QUEUE: taskQueue });

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
  dir = mkdtempSync(join(tmpdir(), 'amsflow-deploys-'));
}, 180_000);

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await sim?.close();
  await connection?.close();
  await cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('rolls out an incompatible build: old conversations finish on build 1, new ones and the agent run build 2, build 1 drains and its worker stops', async () => {
  const started = Date.now();
  const [b1, b2] = await Promise.all([bundleFile('signup-v1'), bundleFile('signup-v2')]);
  expect(b1.buildId).not.toBe(b2.buildId);
  const deploymentName = taskQueue;

  // Build 1: the deployment's first build is made current by its worker (AMSFLOW_PROMOTE=first).
  const one = startWorker('build-1', b1.path, {
    AMSFLOW_EXIT_WHEN_DRAINED: '1',
    AMSFLOW_HEALTH_CHECK_MS: '1000',
  });
  await whenRunning(one);
  expect(one.output.join('\n')).toContain(
    `build ${b1.buildId} is now current in deployment ${deploymentName}`,
  );
  const firstSignup = `agent:${agentKey}:msg:${await human('signup')}`;
  await botSays('What is your name?');
  expect(await buildOf(firstSignup)).toBe(b1.buildId);
  const offsetBefore = (await getAgentState(client!, agentKey))!.offset;

  // The replay check before the rollout: build 2 cannot run build 1's signup; a rewording can.
  const replayStarted = Date.now();
  const incompatible = await cli(['replay', '--workflows', bot('signup-v2')], cliEnv());
  const replayMs = Date.now() - replayStarted;
  expect(incompatible.code).toBe(1);
  expect(incompatible.out).toMatch(
    new RegExp(`FAIL ${firstSignup} \\(onMessage, build ${b1.buildId}, running; pinned`),
  );
  expect(incompatible.out).toContain('Nondeterminism error');
  expect(incompatible.out).not.toContain(`FAIL agent:${agentKey} `);
  const compatible = await cli(['replay', '--workflows', bot('signup-v1-reworded')], cliEnv());
  expect({ code: compatible.code, out: compatible.out }).toEqual({
    code: 0,
    out: expect.stringMatching(/: 0 would fail$/) as string,
  });
  console.log(
    `replay check (CLI in-process: fetch, bundle, replay): ${replayMs} ms; ${incompatible.out.split('\n').at(-1)}`,
  );

  // Build 2 starts beside it; not current until promoted (a later build waits for the operator).
  const two = startWorker('build-2', b2.path);
  await whenRunning(two);
  let status = await deploymentStatus(client!, deploymentName);
  expect(status.current).toBe(b1.buildId);
  expect(status.builds.map((b) => [b.buildId, b.status])).toEqual([
    [b2.buildId, 'inactive'],
    [b1.buildId, 'current'],
  ]);
  const promoted = await cli(['deploy', 'promote', b2.buildId], cliEnv());
  // Compared whole, so that a failure shows what the command wrote to stderr.
  expect(promoted).toEqual({
    code: 0,
    out: expect.stringContaining(`build ${b2.buildId} is current`) as string,
    err: expect.any(String) as string,
  });
  status = await deploymentStatus(client!, deploymentName);
  expect(status.current).toBe(b2.buildId);
  const old = status.builds.find((b) => b.buildId === b1.buildId)!;
  expect({ status: old.status, conversations: old.running.conversations, drained: old.drained }).toEqual({
    status: 'draining',
    conversations: 1,
    drained: false,
  });

  // The waiting signup goes on with build 1's steps, on build 1.
  await human('Ada');
  await botSays('What is your email?');
  await human('ada@example.com');
  await botSays('Thanks Ada, registered ada@example.com (signup v1).');
  expect(await buildOf(firstSignup)).toBe(b1.buildId);

  // A new signup runs build 2's steps, on build 2.
  const secondSignup = `agent:${agentKey}:msg:${await human('signup')}`;
  await botSays('Signup v2: your email first, please?');
  await human('bob@example.com');
  await botSays('And your name?');
  await human('Bob');
  await botSays('Thanks Bob, registered bob@example.com (signup v2).');
  expect(await buildOf(secondSignup)).toBe(b2.buildId);
  await Promise.all([firstSignup, secondSignup].map((id) => client!.workflow.getHandle(id).result()));

  // The agent moved to build 2 and kept its offset: every message was handled once, in order.
  await waitFor('the agent on build 2', async () => (await buildOf(`agent:${agentKey}`)) === b2.buildId);
  expect((await getAgentState(client!, agentKey))!.offset).toBeGreaterThan(offsetBefore);
  expect(await botTexts()).toEqual([
    'What is your name?',
    'What is your email?',
    'Thanks Ada, registered ada@example.com (signup v1).',
    'Signup v2: your email first, please?',
    'And your name?',
    'Thanks Bob, registered bob@example.com (signup v2).',
  ]);

  // Build 1 drains; `deploy status` says so, and its worker stops by itself (exit 0).
  await waitFor(
    'build 1 drained',
    async () =>
      (await deploymentStatus(client!, deploymentName)).builds.find((b) => b.buildId === b1.buildId)?.drained,
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  const shown = await cli(['deploy', 'status'], cliEnv());
  expect(shown.code).toBe(0);
  expect(shown.out).toContain(`${b2.buildId}  current  conversations 0, approvals 0, reminders 0, agents 1`);
  expect(shown.out).toMatch(
    new RegExp(`${b1.buildId}  (draining|drained)  conversations 0, .*drained: its workers may stop`),
  );
  const code = await Promise.race([
    one.exited,
    new Promise((r) => setTimeout(() => r('still running'), 30_000)),
  ]);
  expect({
    code,
    said: one.output.some((l) => l.includes('is drained (not current, nothing pinned to it runs)')),
  }).toEqual({
    code: 0,
    said: true,
  });
  expect(two.child.exitCode).toBeNull();
  console.log(`rollout scenario: ${Date.now() - started} ms\n${shown.out}`);
}, 420_000);
