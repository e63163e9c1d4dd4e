/**
 * Payloads bound to their workflow, on a real Temporal server (the shared dev server): the SDK's
 * serialization context reaches the codec on every path a payload takes (client start, signal and
 * query; activity input and result; child input and result; a signal between workflows), so a
 * strict worker runs a whole conversation of them; a ciphertext copied from one workflow's history
 * into a signal to another is refused by the worker (the signal is dropped with the codec's reason,
 * nothing is delivered, no workflow task fails: codec/undecodable.ts); a strict worker refuses an
 * unencrypted signal the same way. The workflows are bundled as amsflow bundles every workflow
 * (its interceptors and payload converter).
 */
import { randomBytes } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { RawValue, type Payload } from '@temporalio/common';
import { bundleWorkflowCode, Runtime, Worker } from '@temporalio/worker';
import {
  CONTEXT_METADATA,
  dataConverterFor,
  KEY_ID_METADATA,
  PAYLOAD_CONVERTER_PATH,
  type EncryptionKey,
} from '../../codec';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/bundling';
import { boundRelay, noteSignal, notesQuery } from './fixtures/bound-workflows';
import { connectDevServer, quietLogger, uniqueTaskQueue, waitFor } from '../support/temporal';
import { settled } from '../protocol/running-amsflow';

jest.setTimeout(120_000);

const key: EncryptionKey = { id: 'k1', key: randomBytes(32) };
const lenient = dataConverterFor([key])!;
const strict = dataConverterFor([key], { strict: true })!;
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

let env: Awaited<ReturnType<typeof connectDevServer>>;
let keyless: Client;
let withKeys: Client;
const queues = { lenient: uniqueTaskQueue('bound-lenient'), strict: uniqueTaskQueue('bound-strict') };
let workers: Worker[] = [];
let running: Promise<void>[] = [];
const started: WorkflowHandle[] = [];

beforeAll(async () => {
  env = await connectDevServer();
  keyless = env.client;
  withKeys = new Client({ connection: env.connection, dataConverter: lenient });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./fixtures/bound-workflows'),
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: quietLogger,
  });
  const activities = { shout: async (t: string) => t.toUpperCase() };
  workers = await Promise.all(
    (['lenient', 'strict'] as const).map((which) =>
      Worker.create({
        connection: env.nativeConnection,
        taskQueue: queues[which],
        workflowBundle,
        activities,
        dataConverter: which === 'strict' ? strict : lenient,
      }),
    ),
  );
  running = workers.map((w) => w.run());
});

afterAll(async () => {
  await Promise.all(started.map((h) => h.terminate('test over').catch(() => undefined)));
  for (const w of workers) w.shutdown();
  await Promise.all(running);
  await env?.close();
});

async function start(queue: keyof typeof queues, id: string): Promise<WorkflowHandle<typeof boundRelay>> {
  const handle = await withKeys.workflow.start(boundRelay, {
    taskQueue: queues[queue],
    workflowId: `${id}-${randomBytes(4).toString('hex')}`,
    args: [{ text: 'zebra' }],
  });
  started.push(handle);
  return handle;
}

/** Every payload of a history event list, with the event it is in. */
function payloadsOf(value: unknown, found: Payload[] = []): Payload[] {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return found;
  const candidate = value as Payload;
  if (candidate.metadata?.encoding instanceof Uint8Array) found.push(candidate);
  for (const child of Object.values(value)) payloadsOf(child, found);
  return found;
}

const boundTo = (p: Payload) => JSON.parse(text(p.metadata?.[CONTEXT_METADATA])) as Record<string, string>;

/** The worker's WARN lines that say a signal to `workflowId` was dropped (the Runtime's logger). */
function dropsOf(workflowId: string): { lines: string[]; stop(): void } {
  const lines: string[] = [];
  const logger = Runtime.instance().logger;
  const log = logger.log.bind(logger);
  const spy = jest.spyOn(logger, 'log').mockImplementation((level, message, meta) => {
    if (meta?.workflowId === workflowId && message.includes('dropped')) lines.push(message);
    log(level, message, meta);
  });
  return { lines, stop: () => spy.mockRestore() };
}

it('a strict worker runs a whole conversation: every payload is bound to the workflow that owns it', async () => {
  const handle = await start('strict', 'bound-relay');
  // A note long enough that random ciphertext never holds it by chance ("n1" once did).
  await handle.signal(noteSignal, { text: 'note-one' });
  await waitFor('the note in the query', async () => (await handle.query(notesQuery)).includes('note-one'));
  expect(await handle.result()).toBe('ZEBRA! note-one,from-child');

  const parent = payloadsOf(await handle.fetchHistory());
  const child = payloadsOf(await withKeys.workflow.getHandle(`${handle.workflowId}:child`).fetchHistory());
  for (const p of [...parent, ...child]) {
    expect(text(p.metadata?.[KEY_ID_METADATA])).toBe('k1');
    expect(Buffer.from(p.data ?? []).toString('latin1')).not.toMatch(/zebra|ZEBRA|note-one|from-child/);
  }
  const owners = (payloads: Payload[]) => new Set(payloads.map((p) => boundTo(p).workflowId));
  // The child's input is bound to the child, its signal to the parent: both appear in each history.
  expect(owners(parent)).toEqual(new Set([handle.workflowId, `${handle.workflowId}:child`]));
  expect(owners(child)).toEqual(new Set([handle.workflowId, `${handle.workflowId}:child`]));
  expect(new Set([...parent, ...child].map((p) => boundTo(p).namespace))).toEqual(new Set(['default']));
});

it('a ciphertext copied into a signal to another workflow is refused by the worker: dropped with the reason, nothing halts', async () => {
  const victim = await start('lenient', 'bound-victim');
  await victim.signal(noteSignal, { text: 'zebra-secret-note' });
  await waitFor('the victim to take its note', async () => (await victim.query(notesQuery)).length === 1);
  const history = await victim.fetchHistory();
  const signalled = history.events!.find((e) => e.workflowExecutionSignaledEventAttributes)!;
  const [copied] = signalled.workflowExecutionSignaledEventAttributes!.input!.payloads!;
  expect(boundTo(copied).workflowId).toBe(victim.workflowId);

  const target = await start('lenient', 'bound-target');
  const drops = dropsOf(target.workflowId);
  try {
    // Someone with access to the namespace but not the keys: the payload goes through untouched.
    await keyless.workflow.getHandle(target.workflowId).signal(noteSignal.name, RawValue.fromPayload(copied));
    const line = await waitFor('the drop in the worker log', () => drops.lines[0]);
    expect(line).toContain(`written for workflow "${victim.workflowId}" in namespace "default"`);
    expect(line).toContain(`not for workflow "${target.workflowId}"`);
    expect(line).not.toContain('zebra');
  } finally {
    drops.stop();
  }
  // Nothing was delivered, and the target goes on: no workflow task failed, it takes a real note.
  expect(await settled(target)).toEqual({ failedTasks: 0, pendingAttempt: 0 });
  expect(await target.query(notesQuery)).toEqual([]);
  await target.signal(noteSignal, { text: 'real note' });
  await waitFor('the real note', async () => (await target.query(notesQuery)).includes('real note'));
});

it('a strict worker refuses an unencrypted signal: dropped with the reason, nothing halts', async () => {
  const target = await start('strict', 'bound-plain');
  const drops = dropsOf(target.workflowId);
  try {
    await keyless.workflow.getHandle(target.workflowId).signal(noteSignal.name, { text: 'injected' });
    const line = await waitFor('the drop in the worker log', () => drops.lines[0]);
    expect(line).toMatch(/Refused an unencrypted payload/);
  } finally {
    drops.stop();
  }
  expect(await settled(target)).toEqual({ failedTasks: 0, pendingAttempt: 0 });
  expect(await target.query(notesQuery)).toEqual([]);
});
