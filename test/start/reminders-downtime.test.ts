/**
 * Reminders across real downtime: amsflow as `npm start` runs it (embedded simulator, embedded
 * Temporal dev server with its data on disk, AMSFLOW_TIMEZONE), stopped entirely (workers, server
 * and simulator) while two reminders fall due, then started again on the same data: the one
 * within its lateness limit is delivered once, marked late; the one past its limit is skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { SimulatorControl } from '../../simulator';
import { ConfigError, loadConfig } from '../../worker/config';
import { freePort } from '../../worker/dev-server';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { remindersQuery, remindersWorkflowId } from '../../protocol/reminders';

jest.setTimeout(180_000);

const AGENT = 'default';

async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let dir: string;
let running: RunningAmsflow | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-reminders-'));
});
afterEach(async () => {
  await running?.shutdown().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function botTexts(): Promise<string[]> {
  const chat = await new SimulatorControl(new URL(running!.simulatorUrl!).origin).conversation(AGENT);
  return chat.entries.filter((e) => e.direction === 'out').map((e) => (e.payload as { body: string }).body);
}

it('a reminder due while everything was down is delivered once, marked late; one past its limit is skipped', async () => {
  const env: NodeJS.ProcessEnv = {
    AMSFLOW_DATA_DIR: dir,
    AMSFLOW_SIMULATOR_PORT: String(await freePort()),
    AMSFLOW_DEV_SERVER_PORT: String(await freePort()),
    AMSFLOW_DEV_SERVER_UI_PORT: String(await freePort()),
    AMSFLOW_WORKFLOWS: require.resolve('../testing/bots/reminder-bot'),
    AMSFLOW_TIMEZONE: 'Europe/Berlin',
  };
  const quiet = () => undefined;
  running = await runAmsflow(loadConfig(env), quiet);
  const control = new SimulatorControl(new URL(running.simulatorUrl!).origin);
  const asked = Date.now();
  await control.humanText('quick 10 stretch', { agent: AGENT });
  await control.humanText('quick-expiring 10 old news', { agent: AGENT });
  const confirmations = await until('both confirmations', 30_000, async () => {
    const texts = (await botTexts()).filter((t) => t.startsWith('Quick reminder at '));
    return texts.length === 2 ? texts : undefined;
  });
  expect(confirmations.join('\n')).toContain('(Europe/Berlin)');

  await running.shutdown();
  running = undefined;
  const down = Date.now();
  // Everything stopped before the reminders were due, else this test proves nothing.
  expect(down).toBeLessThan(asked + 10_000);
  // Both fall due while everything is down; then 8 s more: "old news" is past its 5 s limit.
  await new Promise((r) => setTimeout(r, asked + 10_000 + 8_000 - down));

  running = await runAmsflow(loadConfig(env), quiet);
  const delivered = await until('the late reminder', 60_000, async () =>
    (await botTexts()).find((t) => t.startsWith('⏰')),
  );
  expect(delivered).toMatch(/^⏰ stretch \(late by \d+ s\)$/);
  const late = Number(/by (\d+) s/.exec(delivered)![1]);
  expect(late).toBeGreaterThanOrEqual(8);

  // Once, and nothing for the one past its limit.
  const connection = await openConnection({ address: running.temporalAddress });
  try {
    const client = new Client({ connection });
    const state = await until('the reminders to be done', 30_000, async () => {
      const view = await client.workflow.getHandle(remindersWorkflowId(AGENT)).query(remindersQuery);
      return view.delivered + view.skipped === 2 ? view : undefined;
    });
    expect(state).toMatchObject({ reminders: [], delivered: 1, skipped: 1, failed: 0 });
  } finally {
    await connection.close();
  }
  await new Promise((r) => setTimeout(r, 3_000));
  expect((await botTexts()).filter((t) => t.startsWith('⏰'))).toEqual([delivered]);
});

it('AMSFLOW_TIMEZONE: an IANA zone, checked; unset means UTC for reminders', () => {
  expect(loadConfig({ AMSFLOW_TIMEZONE: 'America/New_York' }).timeZone).toBe('America/New_York');
  expect(loadConfig({}).timeZone).toBeUndefined();
  expect(() => loadConfig({ AMSFLOW_TIMEZONE: 'Mars/Olympus' })).toThrow(ConfigError);
  expect(() => loadConfig({ AMSFLOW_TIMEZONE: 'Mars/Olympus' })).toThrow(
    'AMSFLOW_TIMEZONE: is not an IANA time zone (like Europe/Berlin)',
  );
});
