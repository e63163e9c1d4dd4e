/**
 * The real Temporal UI (the dev server's embedded UI, `--ui-codec-endpoint`) shows a payload
 * decrypted through amsflow's codec server, in headless Chromium, while the history holds only
 * ciphertext; a payload written with a key the codec server lacks stays unreadable there. And in
 * the same browser, a page of another origin cannot use the codec server: its request is refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { type Browser, type Page } from 'playwright-core';
import { dataConverterFor, EncryptionCodec, startCodecServer, type CodecServer } from '../../codec';
import { freePort } from '../../worker/dev-server';
import { waitFor } from '../support/temporal';
import { launchChromium } from '../support/chromium';

jest.setTimeout(180_000);

const key = { id: 'ui-k1', key: randomBytes(32) };
const word = `zebra-ui-${randomBytes(5).toString('hex')}`;
const lost = `zebra-lost-${randomBytes(5).toString('hex')}`;

let dir: string;
let devServer: ChildProcess | undefined;
let codec: CodecServer;
let stranger: Server;
let browser: Browser;
let page: Page;
let connection: Connection;
let ui: string;

/** The dev server with its UI, decoding through `codecUrl`; resolves once gRPC and the UI answer. */
async function startDevServer(codecUrl: string): Promise<{ address: string; ui: string }> {
  const [grpc, uiPort] = [await freePort(), await freePort()];
  const cli = process.env.TEMPORAL_CLI_PATH;
  if (!cli) throw new Error('TEMPORAL_CLI_PATH is unset: run the suite through jest (global setup)');
  devServer = spawn(
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(grpc),
      '--ui-ip',
      '127.0.0.1',
      '--ui-port',
      String(uiPort),
    ]
      .concat(['--db-filename', join(dir, 'temporal.db'), '--namespace', 'default', '--log-level', 'error'])
      .concat(['--ui-codec-endpoint', codecUrl]),
    { stdio: 'ignore' },
  );
  const address = `127.0.0.1:${grpc}`;
  connection = await waitFor('the dev server', () => openConnection({ address, connectTimeout: 1_000 }), {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  await waitFor('the UI', async () => (await fetch(uiUrl)).ok, { timeoutMs: 60_000, intervalMs: 250 });
  return { address, ui: uiUrl };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-ui-codec-'));
  // The codec server's port goes to the dev server; the UI's origin, known once it runs, to the codec server.
  const codecPort = await freePort();
  const started = await startDevServer(`http://127.0.0.1:${codecPort}`);
  ui = started.ui;
  codec = await startCodecServer({
    codec: new EncryptionCodec([key]),
    port: codecPort,
    origins: [ui, ui.replace('127.0.0.1', 'localhost')],
  });
  stranger = createServer((_req, res) => res.end('<!doctype html><title>another site</title>'));
  await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', r));
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  await codec?.close();
  stranger?.close();
  await connection?.close();
  if (devServer && devServer.exitCode === null) {
    const exited = new Promise((r) => devServer!.once('exit', r));
    devServer.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    devServer.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a workflow (no worker: it stays pending) whose input is `text`, encrypted with `keys`. */
async function startWith(text: string, keys: { id: string; key: Buffer }[]): Promise<string> {
  const client = new Client({ connection, dataConverter: dataConverterFor(keys) });
  const workflowId = `ui-codec-${randomBytes(4).toString('hex')}`;
  await client.workflow.start('uiCodecProbe', {
    taskQueue: 'ui-codec-nobody',
    workflowId,
    args: [{ note: text }],
  });
  const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  const [payload] = started.input!.payloads!;
  expect(Buffer.from(payload.metadata!.encoding).toString()).toBe('binary/encrypted');
  expect(Buffer.from(payload.data!).toString('latin1')).not.toContain(text);
  return workflowId;
}

/** Opens the workflow's page; resolves to the text of its Input panel once `ready` accepts it. */
async function inputPanel(workflowId: string, ready: (text: string) => boolean): Promise<string> {
  await page.goto(`${ui}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
  const panel = page.locator('[aria-label="Input"]').first();
  await panel.waitFor({ timeout: 60_000 });
  return waitFor(
    'the Input panel',
    async () => {
      const text = (await panel.innerText()).trim();
      return ready(text) && text;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

it('shows the decoded input of a workflow whose history holds only ciphertext', async () => {
  const workflowId = await startWith(word, [key]);
  const shown = await inputPanel(workflowId, (text) => text.includes(word));
  expect(JSON.parse(shown)).toEqual({ note: word });
  await page.screenshot({ path: join(__dirname, '..', '..', 'test-artifacts', 'temporal-ui-codec.png') });
});

it('shows only ciphertext for a payload the codec server cannot decrypt (the text comes through it)', async () => {
  const workflowId = await startWith(lost, [{ id: 'other', key: randomBytes(32) }]);
  // The UI falls back to the raw payload once the codec server refuses: its data, base64 ciphertext.
  const shown = await inputPanel(workflowId, (text) => /^"[A-Za-z0-9+/]+=*"$/.test(text));
  expect(shown).not.toContain(lost);
  expect(Buffer.from(JSON.parse(shown) as string, 'base64').toString('latin1')).not.toContain(lost);
});

it('refuses a page of another origin in the same browser', async () => {
  const other = await browser.newPage();
  try {
    await other.goto(`http://127.0.0.1:${(stranger.address() as { port: number }).port}/`);
    const outcome = await other.evaluate(async (url) => {
      try {
        const res = await fetch(`${url}/decode`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-namespace': 'default' },
          body: JSON.stringify({ payloads: [] }),
        });
        return `status ${res.status}`;
      } catch (err) {
        return `blocked: ${(err as Error).message}`;
      }
    }, codec.url);
    expect(outcome).toMatch(/^blocked/);
    // From the UI's own origin the same request is allowed.
    const fromUi = await page.evaluate(async (url) => {
      const res = await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default' },
        body: JSON.stringify({ payloads: [] }),
      });
      return res.status;
    }, codec.url);
    expect(fromUi).toBe(200);
  } finally {
    await other.close();
  }
});
