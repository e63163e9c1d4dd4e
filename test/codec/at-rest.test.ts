/**
 * Encryption at rest, end to end: amsflow as `npm start` runs it (embedded simulator, embedded
 * Temporal dev server with its SQLite data on disk) with `AMSFLOW_ENCRYPTION_KEYS` set. The human
 * sends a distinctive message and the bot echoes it; once everything has stopped, the message is
 * nowhere in the database's bytes (nor in its write-ahead log). Without keys the same check finds
 * it, so the check can fail. Then the keys rotate (`new:...,old:...`) on the same data: the old
 * history still decodes and a new message goes through.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import type { Payload } from '@temporalio/common';
import { SimulatorControl } from '../../simulator';
import { ConfigError, loadConfig } from '../../worker/config';
import {
  CONTEXT_METADATA,
  EncryptionCodec,
  EncryptionCodecError,
  KEY_ID_METADATA,
  type EncryptionKey,
} from '../../codec';
import { freePort } from '../../worker/dev-server';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { agentWorkflowId } from '../../protocol/agent';

jest.setTimeout(240_000);

const AGENT = 'default';
const quiet = () => undefined;
const key = (id: string): EncryptionKey => ({ id, key: randomBytes(32) });
const keysEnv = (...keys: EncryptionKey[]) =>
  keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');

const dirs: string[] = [];
let running: RunningAmsflow | undefined;
afterEach(async () => {
  await running?.shutdown().catch(() => undefined);
  running = undefined;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function envFor(keys: string | undefined): Promise<NodeJS.ProcessEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-at-rest-'));
  dirs.push(dir);
  return {
    AMSFLOW_DATA_DIR: dir,
    AMSFLOW_SIMULATOR_PORT: String(await freePort()),
    AMSFLOW_DEV_SERVER_PORT: String(await freePort()),
    AMSFLOW_DEV_SERVER_UI_PORT: String(await freePort()),
    AMSFLOW_METRICS_PORT: '0',
    ...(keys ? { AMSFLOW_ENCRYPTION_KEYS: keys } : {}),
  };
}

/** Starts amsflow, has the human write `echo <word>` and waits for the bot's echo. */
async function echo(env: NodeJS.ProcessEnv, word: string): Promise<void> {
  running = await runAmsflow(loadConfig(env), quiet);
  const control = new SimulatorControl(new URL(running.simulatorUrl!).origin);
  await control.humanText(`echo ${word}`, { agent: AGENT });
  await control.waitFor(
    (c) => c.conversation(AGENT),
    (chat) =>
      chat.entries.some((e) => e.direction === 'out' && (e.payload as { body?: string }).body === word),
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

/** Every byte Temporal keeps on disk: the database, its write-ahead log and shared memory. */
function temporalBytes(env: NodeJS.ProcessEnv): Buffer {
  const db = join(env.AMSFLOW_DATA_DIR!, 'demo', 'temporal.db');
  expect(existsSync(db)).toBe(true);
  return Buffer.concat(
    ['', '-wal', '-shm'].filter((s) => existsSync(db + s)).map((s) => readFileSync(db + s)),
  );
}

/** Every payload in a history (objects with `metadata.encoding` and `data`). */
function payloadsOf(value: unknown, found: Payload[] = []): Payload[] {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return found;
  const candidate = value as Payload;
  if (candidate.metadata?.encoding instanceof Uint8Array) found.push(candidate);
  for (const child of Object.values(value)) payloadsOf(child, found);
  return found;
}

async function agentHistoryPayloads(address: string): Promise<Payload[]> {
  const connection = await openConnection({ address });
  try {
    const history = await new Client({ connection }).workflow
      .getHandle(agentWorkflowId(AGENT))
      .fetchHistory();
    return payloadsOf(history);
  } finally {
    await connection.close();
  }
}

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

it('without keys, the message body is in the database in plain text (the check can fail)', async () => {
  const env = await envFor(undefined);
  const word = `zebra-${randomBytes(6).toString('hex')}`;
  await echo(env, word);
  await running!.shutdown();
  running = undefined;
  expect(temporalBytes(env).includes(word)).toBe(true);
});

it('with keys, no message body is in the database; after rotation the old history still decodes', async () => {
  const [oldKey, newKey] = [key('old'), key('new')];
  const env = await envFor(keysEnv(oldKey));
  const word = `zebra-${randomBytes(6).toString('hex')}`;
  await echo(env, word);
  await running!.shutdown();
  running = undefined;
  const bytes = temporalBytes(env);
  expect(bytes.length).toBeGreaterThan(10_000);
  expect(bytes.includes(word)).toBe(false);
  // Not as UTF-16 or base64 either.
  expect(bytes.includes(Buffer.from(word, 'utf16le'))).toBe(false);
  expect(bytes.includes(Buffer.from(word).toString('base64').slice(0, 12))).toBe(false);

  // Rotation: a new current key, the old one kept for the histories that need it.
  const rotated = { ...env, AMSFLOW_ENCRYPTION_KEYS: keysEnv(newKey, oldKey) };
  const second = `zebra-${randomBytes(6).toString('hex')}`;
  // The restarted worker replays the agent's history (written with the old key) and goes on.
  await echo(rotated, second);
  const payloads = await agentHistoryPayloads(running!.temporalAddress);
  const keyIds = new Set(payloads.map((p) => text(p.metadata?.[KEY_ID_METADATA])).filter(Boolean));
  expect(keyIds).toEqual(new Set(['old', 'new']));
  // What Temporal keeps readable by design: patch markers and their search attribute.
  const readable = payloads.filter((p) => !p.metadata?.[KEY_ID_METADATA]).map((p) => text(p.data));
  for (const data of readable)
    expect(data).toMatch(/^(\{"id":"[\w.-]+","deprecated":(true|false)\}|\["[\w.",-]*"\])$/);
  const decoded = await new EncryptionCodec([newKey, oldKey]).decode(payloads);
  const plain = decoded.map((p) => text(p.data)).join('\n');
  expect(plain).toContain(word);
  expect(plain).toContain(second);
  // Without the old key, the old history cannot be read.
  await expect(new EncryptionCodec([newKey]).decode(payloads)).rejects.toThrow(EncryptionCodecError);

  await running!.shutdown();
  running = undefined;
  const after = temporalBytes(env);
  expect(after.includes(word)).toBe(false);
  expect(after.includes(second)).toBe(false);
});

it('strict (AMSFLOW_ENCRYPTION_STRICT=1): the engine runs on bound payloads only, every one bound to its workflow', async () => {
  const env = { ...(await envFor(keysEnv(key('strict')))), AMSFLOW_ENCRYPTION_STRICT: '1' };
  const word = `zebra-${randomBytes(6).toString('hex')}`;
  await echo(env, word);
  const payloads = await agentHistoryPayloads(running!.temporalAddress);
  const encrypted = payloads.filter((p) => p.metadata?.[KEY_ID_METADATA]);
  expect(encrypted.length).toBeGreaterThan(5);
  for (const p of encrypted)
    expect(JSON.parse(text(p.metadata?.[CONTEXT_METADATA]))).toEqual({
      namespace: 'default',
      workflowId: expect.stringMatching(/^agent:default(:msg:.+)?$/) as string,
    });
});

it('a bad AMSFLOW_ENCRYPTION_KEYS stops the start before anything runs', () => {
  expect(() => loadConfig({ AMSFLOW_ENCRYPTION_KEYS: 'k:c2hvcnQ=' })).toThrow(ConfigError);
});
