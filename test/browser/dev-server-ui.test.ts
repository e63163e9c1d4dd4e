/**
 * The embedded dev server as `npm start` runs it (worker/dev-server.ts), in headless Chromium
 * whose resolver maps evil.example to 127.0.0.1, as a DNS rebinding attack makes it (issue 37,
 * point 4): the developer's UI works through amsflow's checked proxy (a workflow's input shows),
 * the same UI under the rebound name answers 403 and shows nothing, and a page of that name
 * cannot terminate a workflow with a cross-site `text/plain` POST to the HTTP API or the UI.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { type Browser } from 'playwright-core';
import { openConnection } from '../../tools/temporal-connection';
import { freePort, startDevServer, type RunningDevServer } from '../../worker/dev-server';
import { loopbackListeners } from '../support/listening-ports';
import { waitFor } from '../support/temporal';
import { launchChromium } from '../support/chromium';

jest.setTimeout(180_000);

const marker = `zebra-chat-${randomBytes(5).toString('hex')}`;
const workflowId = `ui-proxy-${randomBytes(4).toString('hex')}`;

let dir: string;
let server: RunningDevServer;
let connection: Connection;
let client: Client;
let attacker: Server;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-ui-proxy-'));
  const cliPath = process.env.TEMPORAL_CLI_PATH;
  if (!cliPath) throw new Error('TEMPORAL_CLI_PATH is unset: run the suite through jest (global setup)');
  server = await startDevServer({ cliPath, dbFile: join(dir, 'temporal.db'), uiPort: await freePort() });
  connection = await openConnection({ address: server.address });
  client = new Client({ connection });
  await client.workflow.start('uiProxyProbe', { taskQueue: 'ui-proxy-nobody', workflowId, args: [marker] });
  attacker = createServer((_req, res) => res.end('<!doctype html><title>evil.example</title>'));
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
  browser = await launchChromium([
    // DNS rebinding, as the attacker's name server answers it.
    '--host-resolver-rules=MAP evil.example 127.0.0.1',
  ]);
});

afterAll(async () => {
  await browser?.close();
  attacker?.close();
  await connection?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("shows the developer a workflow's input through amsflow's proxy", async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${workflowId}`);
    const panel = page.locator('[aria-label="Input"]').first();
    await panel.waitFor({ timeout: 60_000 });
    await waitFor('the input in the Input panel', async () => (await panel.innerText()).includes(marker), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  } finally {
    await page.close();
  }
});

it('answers the same UI under a rebound name with 403, showing nothing', async () => {
  const page = await browser.newPage();
  try {
    const port = new URL(server.uiUrl!).port;
    const answer = await page.goto(`http://evil.example:${port}/namespaces/default/workflows/${workflowId}`);
    expect(answer?.status()).toBe(403);
    const api = await page.evaluate(async (id) => {
      const res = await fetch(`/api/v1/namespaces/default/workflows/${id}/history`);
      return { status: res.status, body: await res.text() };
    }, workflowId);
    expect(api.status).toBe(403);
    expect(api.body).not.toContain(Buffer.from(JSON.stringify(marker)).toString('base64'));
  } finally {
    await page.close();
  }
});

const linuxIt = process.platform === 'linux' ? it : it.skip;

linuxIt(
  "lets a page's cross-site text/plain POST to any of the server's ports terminate nothing",
  async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`http://evil.example:${(attacker.address() as AddressInfo).port}/`);
      // Every port the server opens on 127.0.0.1 (its HTTP API among them), as a scanning page finds them, and the UI.
      const targets = [...loopbackListeners(server.pid).map((p) => `http://127.0.0.1:${p}`), server.uiUrl!];
      // The gRPC frontend, the HTTP API, the server's metrics and its internal services at least.
      expect(targets.length).toBeGreaterThanOrEqual(4);
      await page.evaluate(
        async ({ targets, id }) => {
          for (const base of targets) {
            // A simple request: no preflight, the answer opaque, but the server runs it if it will.
            await fetch(`${base}/api/v1/namespaces/default/workflows/${id}/terminate`, {
              method: 'POST',
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body: JSON.stringify({ reason: 'a web page' }),
            }).catch(() => undefined);
          }
        },
        { targets, id: workflowId },
      );
      expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    } finally {
      await page.close();
    }
  },
);
