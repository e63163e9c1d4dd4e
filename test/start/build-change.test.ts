/**
 * `npm start` runs versioned too (the embedded dev server, its data on disk): each start's build
 * is made current, and what an earlier build left pinned (a conversation, and the agent itself)
 * moves to it, since no worker of that build will ever run again. So the developer's loop stays as it was: begin a signup, stop, edit
 * the bot (a compatible change), start again, and the signup goes on with the new code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { SimulatorControl } from '../../simulator';
import { loadConfig } from '../../worker/config';
import { freePort } from '../../worker/dev-server';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { describeDeployment, pinnedOn } from '../../protocol/deployments';
import { waitFor } from '../support/temporal';

jest.setTimeout(180_000);

const AGENT = 'default';
const bot = (name: string) => resolve(__dirname, '..', 'cluster', 'bots', `${name}.ts`);

let dir: string;
let running: RunningAmsflow | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-build-change-'));
});
afterEach(async () => {
  await running?.shutdown().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const control = () => new SimulatorControl(new URL(running!.simulatorUrl!).origin);

async function botSays(text: string): Promise<void> {
  await waitFor(
    `the bot to say ${JSON.stringify(text)}`,
    async () => {
      const chat = await control().conversation(AGENT);
      const out = chat.entries.filter((e) => e.direction === 'out');
      return (out.at(-1)?.payload as { body?: string } | undefined)?.body === text;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

it('a signup begun on one build goes on with the next build after a restart of the embedded start', async () => {
  const env: NodeJS.ProcessEnv = {
    AMSFLOW_DATA_DIR: dir,
    AMSFLOW_SIMULATOR_PORT: String(await freePort()),
    AMSFLOW_DEV_SERVER_PORT: String(await freePort()),
    AMSFLOW_DEV_SERVER_UI_PORT: String(await freePort()),
  };
  const lines: string[] = [];
  const log = (line: string) => void lines.push(line);
  running = await runAmsflow(loadConfig({ ...env, AMSFLOW_WORKFLOWS: bot('signup-v1') }), log);
  await control().humanText('signup', { agent: AGENT });
  await botSays('What is your name?');
  await running.shutdown();

  running = await runAmsflow(loadConfig({ ...env, AMSFLOW_WORKFLOWS: bot('signup-v1-reworded') }), log);
  expect(lines.filter((l) => /is now current|moved to this build/.test(l))).toEqual([
    expect.stringMatching(/^amsflow: build \w+ is now current in deployment amsflow$/),
    expect.stringMatching(/^amsflow: build \w+ is now current in deployment amsflow$/),
    // The signup, and the agent: pinned like every workflow, it would continue as new onto the
    // new build when woken, but no worker of the earlier build is left to run that task.
    expect.stringMatching(/^amsflow: 2 workflow\(s\) of the earlier build \w+ moved to this build$/),
  ]);
  await control().humanText('Ada', { agent: AGENT });
  await botSays('And your email?');
  await control().humanText('ada@example.com', { agent: AGENT });
  await botSays('Welcome Ada, registered ada@example.com (signup v1.1).');

  // The new build is current and the old one has nothing left pinned to it.
  const connection = await openConnection({ address: running.temporalAddress });
  try {
    const client = new Client({ connection });
    const view = (await describeDeployment(client, 'amsflow'))!;
    const [newer, older] = view.builds;
    expect({ builds: view.builds.length, current: view.current }).toEqual({
      builds: 2,
      current: newer.buildId,
    });
    expect(await pinnedOn(client, { deploymentName: 'amsflow', buildId: older.buildId })).toEqual([]);
  } finally {
    await connection.close();
  }
});
