/**
 * The checked proxy (worker/checked-proxy.ts) in front of a real local server on port 0: every
 * stranger of core/local-request.ts is refused before anything reaches the server; the server's
 * own callers get its answer with their request as sent (Host, body, cookies); no absolute URL
 * turns it into a proxy to elsewhere; a server that is down is a 502 that says so.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCheckedProxy, type CheckedProxy } from '../../worker/checked-proxy';
import { freePort } from '../../worker/dev-server';
import { ALL_REFUSED, probeStrangers, rawRequest } from '../support/local-request-probe';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let upstream: Server;
let proxy: CheckedProxy;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': '_csrf=abc; Path=/' });
      res.end(`upstream saw ${req.method} ${req.url}`);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const { port } = upstream.address() as AddressInfo;
  proxy = await startCheckedProxy({
    host: '127.0.0.1',
    port: 0,
    upstream: { host: '127.0.0.1', port },
    what: 'the test server',
  });
});

afterAll(async () => {
  await proxy.close();
  upstream.close();
});

beforeEach(() => seen.splice(0));

describe('the checked proxy', () => {
  it.each(['GET', 'POST'])('refuses every stranger on %s before the server sees it', async (method) => {
    const probe = await probeStrangers(proxy.port, method, '/api/v1/x', {
      extra: { 'content-type': 'text/plain' },
      body: method === 'POST' ? '{"reason":"a page"}' : undefined,
    });
    expect(probe.strangers).toEqual(ALL_REFUSED);
    for (const body of probe.bodies)
      expect(body).toMatch(/^amsflow refused this request to the test server: /);
    // Only the own caller's request got through.
    expect(seen.map((s) => s.method)).toEqual([method]);
    expect(probe.own.status).toBe(200);
  });

  it("forwards its own caller's request as sent, and the server's answer", async () => {
    const own = { host: `localhost:${proxy.port}`, origin: `http://localhost:${proxy.port}` };
    const answer = await rawRequest(
      proxy.port,
      'POST',
      '/api/v1/signal?x=1',
      { ...own, cookie: '_csrf=abc', 'x-csrf-token': 'abc', 'content-type': 'application/json' },
      '{"signal":"own"}',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('upstream saw POST /api/v1/signal?x=1');
    expect(answer.headers['set-cookie']).toEqual(['_csrf=abc; Path=/']);
    expect(seen).toEqual([
      expect.objectContaining({
        url: '/api/v1/signal?x=1',
        body: '{"signal":"own"}',
        headers: expect.objectContaining({ host: own.host, cookie: '_csrf=abc', 'x-csrf-token': 'abc' }),
      }),
    ]);
  });

  it('takes no absolute URL: it is no proxy to anywhere else', async () => {
    const answer = await rawRequest(proxy.port, 'GET', 'http://example.com/', {
      host: `127.0.0.1:${proxy.port}`,
    });
    expect(answer.status).toBe(400);
    expect(seen).toEqual([]);
  });

  it('answers 502, saying so, while the server behind it is down', async () => {
    const down = await startCheckedProxy({
      host: '127.0.0.1',
      port: 0,
      upstream: { host: '127.0.0.1', port: await freePort() },
      what: 'the Temporal UI',
    });
    try {
      const answer = await rawRequest(down.port, 'GET', '/', { host: `127.0.0.1:${down.port}` });
      expect(answer.status).toBe(502);
      expect(answer.body).toMatch(/^the Temporal UI is not answering/);
    } finally {
      await down.close();
    }
  });
});
