/**
 * Payloads bound to their workflow, on a real Temporal server (the shared dev server): the SDK's
 * serialization context reaches the codec on every path a payload takes (client start, signal and
 * query; activity input and result; child input and result; a signal between workflows), so a
 * strict worker runs a whole conversation of them; a ciphertext copied from one workflow's history
 * into a signal to another is refused by the worker (its workflow task fails, nothing is
 * delivered); a strict worker refuses an unencrypted signal.
 */
import { randomBytes } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { RawValue, type Payload } from '@temporalio/common';
import {
  loadDataConverter,
  decodeOptionalFailureToOptionalError,
} from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { CONTEXT_METADATA, dataConverterFor, KEY_ID_METADATA, type EncryptionKey } from '../../codec';
import { boundRelay, noteSignal, notesQuery } from './fixtures/bound-workflows';
import { bundle, connectDevServer, uniqueTaskQueue, waitFor } from '../support/temporal';

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
  const workflowBundle = await bundle(require.resolve('./fixtures/bound-workflows'));
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

/** The message of the first failed workflow task of `handle`, decoded with the keys. */
async function failedTaskMessage(handle: WorkflowHandle): Promise<string | undefined> {
  const history = await handle.fetchHistory();
  const failure = history.events?.find((e) => e.workflowTaskFailedEventAttributes)
    ?.workflowTaskFailedEventAttributes?.failure as temporal.api.failure.v1.IFailure | undefined;
  if (!failure) return undefined;
  const error = await decodeOptionalFailureToOptionalError(loadDataConverter(lenient), failure);
  return error?.message;
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

it('a ciphertext copied into a signal to another workflow is refused by the worker', async () => {
  const victim = await start('lenient', 'bound-victim');
  await victim.signal(noteSignal, { text: 'zebra-secret-note' });
  await waitFor('the victim to take its note', async () => (await victim.query(notesQuery)).length === 1);
  const history = await victim.fetchHistory();
  const signalled = history.events!.find((e) => e.workflowExecutionSignaledEventAttributes)!;
  const [copied] = signalled.workflowExecutionSignaledEventAttributes!.input!.payloads!;
  expect(boundTo(copied).workflowId).toBe(victim.workflowId);

  const target = await start('lenient', 'bound-target');
  // Someone with access to the namespace but not the keys: the payload goes through untouched.
  await keyless.workflow.getHandle(target.workflowId).signal(noteSignal.name, RawValue.fromPayload(copied));
  const message = await waitFor('the target workflow task to fail', () => failedTaskMessage(target));
  expect(message).toContain(`written for workflow "${victim.workflowId}" in namespace "default"`);
  expect(message).toContain(`not for workflow "${target.workflowId}"`);
  // Nothing was delivered: no workflow task has completed since the copied signal arrived.
  const events = (await target.fetchHistory()).events!;
  const copiedAt = events.map((e) => Boolean(e.workflowExecutionSignaledEventAttributes)).lastIndexOf(true);
  expect(copiedAt).toBeGreaterThan(0);
  expect(events.slice(copiedAt).some((e) => e.workflowTaskCompletedEventAttributes)).toBe(false);
});

it('a strict worker refuses an unencrypted signal', async () => {
  const target = await start('strict', 'bound-plain');
  await keyless.workflow.getHandle(target.workflowId).signal(noteSignal.name, { text: 'injected' });
  const message = await waitFor('the strict workflow task to fail', () => failedTaskMessage(target));
  expect(message).toMatch(/Refused an unencrypted payload/);
});
