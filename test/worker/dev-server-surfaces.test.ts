/**
 * What the embedded dev server serves on this machine answers only this machine's own callers
 * (issue 37, point 4), probed as a web page would: a page on a DNS name rebound to 127.0.0.1
 * (foreign Host) reads no history through the web UI and signals nothing with the UI's own CSRF
 * token; a cross-site `text/plain` POST to any port the server opens on 127.0.0.1 (its HTTP API
 * among them) terminates nothing; the database and the files beside it are its user's alone. The
 * real server binary, real HTTP; the UI's own callers are still served through the proxy.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { freePort, startDevServer, type RunningDevServer } from '../../worker/dev-server';
import { loopbackListeners } from '../support/listening-ports';
import { ALL_REFUSED, probeStrangers, rawRequest, type RawAnswer } from '../support/local-request-probe';
import { waitFor } from '../support/temporal';

function cliPath(): string {
  const path = process.env.TEMPORAL_CLI_PATH;
  if (!path) throw new Error('TEMPORAL_CLI_PATH is set by the jest global setup');
  return path;
}

/** The request, or its transport error as status 0 (a gRPC port hangs up on HTTP/1.1). */
const attempt = (...args: Parameters<typeof rawRequest>): Promise<RawAnswer> =>
  rawRequest(...args).catch((err: Error) => ({ status: 0, headers: {}, body: err.message }));

const csrfOf = (answer: RawAnswer): string | undefined => {
  const cookies = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  return cookies.map((c) => /^_csrf=([^;]+)/.exec(c)?.[1]).find(Boolean);
};

describe('the embedded dev server on loopback', () => {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-surfaces-'));
  const dbFile = join(dir, 'data', 'temporal.db');
  const workflowId = `probe-${process.pid}`;
  const marker = `secret-chat-${Date.now()}`;
  // How a history shows it: the JSON payload's data, base64.
  const shown = Buffer.from(JSON.stringify(marker)).toString('base64');
  let server: RunningDevServer;
  let connection: Connection;
  let client: Client;
  let uiPort: number;
  const historyPath = `/api/v1/namespaces/default/workflows/${workflowId}/history`;

  beforeAll(async () => {
    uiPort = await freePort();
    server = await startDevServer({ cliPath: cliPath(), dbFile, uiPort });
    connection = await openConnection({ address: server.address });
    client = new Client({ connection, namespace: server.namespace });
    // No worker: the workflow stays running, its input (the "chat") in its history.
    await client.workflow.start('Probe', { taskQueue: 'amsflow-probe-nobody', workflowId, args: [marker] });
    // The UI dials the frontend once at its own start, and again after gRPC's backoff if that was early.
    await waitFor(
      'the UI answering through its proxy',
      async () =>
        (await rawRequest(uiPort, 'GET', historyPath, { host: `127.0.0.1:${uiPort}` })).status === 200,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }, 120_000);

  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  const signalPath = (name: string) => `/api/v1/namespaces/default/workflows/${workflowId}/signal/${name}`;
  const signalBody = (name: string) => JSON.stringify({ signalName: name, input: { payloads: [] } });
  const signalled = async () =>
    (await client.workflow.getHandle(workflowId).fetchHistory()).events!.flatMap((e) =>
      e.workflowExecutionSignaledEventAttributes
        ? [e.workflowExecutionSignaledEventAttributes.signalName]
        : [],
    );

  it('serves its UI only to this machine: a rebound page reads no history and signals nothing', async () => {
    expect(server.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    const rebound = { host: `evil.example:${uiPort}`, origin: `http://evil.example:${uiPort}` };
    // The attack as it worked: the page takes the UI's CSRF cookie, then signals with it.
    const page = await rawRequest(uiPort, 'GET', '/', { host: rebound.host });
    expect(page.status).toBe(403);
    const token = csrfOf(page) ?? 'none';
    const signal = await rawRequest(
      uiPort,
      'POST',
      signalPath('approve'),
      { ...rebound, 'content-type': 'application/json', 'x-csrf-token': token, cookie: `_csrf=${token}` },
      signalBody('approve'),
    );
    expect(signal.status).toBe(403);
    const history = await probeStrangers(uiPort, 'GET', historyPath);
    expect(history.strangers).toEqual(ALL_REFUSED);
    for (const body of history.bodies) expect(body).not.toContain(shown);

    // Its own callers: the history, and a signal with the UI's token, through the proxy.
    expect(history.own.status).toBe(200);
    expect(history.own.body).toContain(shown);
    const own = { host: `127.0.0.1:${uiPort}`, origin: `http://127.0.0.1:${uiPort}` };
    const ownToken = csrfOf(await rawRequest(uiPort, 'GET', '/', { host: own.host }));
    expect(ownToken).toBeDefined();
    const ownSignal = await rawRequest(
      uiPort,
      'POST',
      signalPath('own'),
      { ...own, 'content-type': 'application/json', 'x-csrf-token': ownToken!, cookie: `_csrf=${ownToken}` },
      signalBody('own'),
    );
    expect(ownSignal.status).toBe(200);
    expect(await signalled()).toEqual(['own']);
  });

  (process.platform === 'linux' ? it : it.skip)(
    'runs no cross-site text/plain POST and shows no history to a rebound page on any port it opens on 127.0.0.1',
    async () => {
      const ports = loopbackListeners(server.pid);
      // The gRPC frontend, the HTTP API, the server's metrics and its internal services at least.
      expect(ports.length).toBeGreaterThanOrEqual(3);
      for (const port of ports) {
        const terminate = await attempt(
          port,
          'POST',
          `/api/v1/namespaces/default/workflows/${workflowId}/terminate`,
          { host: `127.0.0.1:${port}`, origin: 'http://evil.example', 'content-type': 'text/plain' },
          JSON.stringify({ reason: 'a web page' }),
        );
        expect([port, terminate.status >= 200 && terminate.status < 300]).toEqual([port, false]);
        const read = await attempt(port, 'GET', historyPath, { host: `evil.example:${port}` });
        expect([port, read.body.includes(shown)]).toEqual([port, false]);
      }
      expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    },
  );

  it('keeps its database, write-ahead log and shared memory readable by their user only, in a private folder', () => {
    const modes = ['', '-wal', '-shm'].map((suffix) => statSync(`${dbFile}${suffix}`).mode & 0o777);
    expect(modes.map((m) => m.toString(8))).toEqual(['600', '600', '600']);
    expect((statSync(join(dir, 'data')).mode & 0o777).toString(8)).toBe('700');
  });
});
