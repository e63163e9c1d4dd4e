/**
 * The Temporal runtime's own Prometheus exporter (worker/observability/runtime.ts) answers any
 * Host, so it must listen where a page on a rebound DNS name cannot find it (issue 37, point 4):
 * not on 127.0.0.1, on a loopback address of its own each start (Linux); `/metrics` still reads it.
 * Real worker-like processes (the Runtime is one per process), real HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { MetricsRegistry } from '../../../worker/observability/metrics-registry';
import { startMetricsServer } from '../../../worker/observability/metrics-server';
import { Readiness } from '../../../worker/observability/readiness';
import { LOOPBACK, privateLoopbackHost } from '../../../worker/private-loopback';
import { rawRequest, type RawAnswer } from '../../support/local-request-probe';

const CHILD = join(__dirname, 'runtime-metrics-child.ts');
const children: ChildProcess[] = [];
afterAll(() => children.forEach((child) => child.stdin?.end()));

/** A process with the runtime installed; resolves to its exporter's URL. */
function runtimeProcess(): Promise<URL> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', CHILD], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(new URL((JSON.parse(out.split('\n')[0]) as { url: string }).url));
    });
    child.once('exit', (code) =>
      reject(new Error(`the runtime's process exited (${code}) before reporting`)),
    );
  });
}

/** A request to 127.0.0.1 as a rebound page sends it; a transport error is status 0. */
const rebound = (port: number): Promise<RawAnswer> =>
  rawRequest(port, 'GET', '/metrics', { host: `evil.example:${port}` }).catch((err: Error) => ({
    status: 0,
    headers: {},
    body: err.message,
  }));

const linuxIt = process.platform === 'linux' ? it : it.skip;

describe("the Temporal runtime's metrics exporter", () => {
  linuxIt(
    'is not on 127.0.0.1 but on an address of its own each start, which /metrics reads',
    async () => {
      const [first, second] = await Promise.all([runtimeProcess(), runtimeProcess()]);
      for (const url of [first, second]) {
        expect(url.hostname).toMatch(/^127\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/);
        expect(url.hostname).not.toMatch(/^127\.0\.0\./);
        // A page rebound to 127.0.0.1 at the exporter's port finds nothing there.
        expect((await rebound(Number(url.port))).status).toBe(0);
      }
      expect(first.hostname).not.toBe(second.hostname);

      const own = await fetch(first);
      expect(own.status).toBe(200);
      const text = await own.text();
      // The connection's requests, counted by the runtime.
      expect(text).toMatch(/^temporal_request/m);
      const server = await startMetricsServer({
        port: 0,
        host: LOOPBACK,
        registry: new MetricsRegistry(),
        readiness: new Readiness(),
        runtimeMetricsUrl: () => first.href,
      });
      try {
        const scrape = await rawRequest(server.port, 'GET', '/metrics', { host: `127.0.0.1:${server.port}` });
        expect(scrape.status).toBe(200);
        expect(scrape.body).not.toMatch(/runtime's metrics (are unavailable|answered)/);
        expect(scrape.body).toMatch(/^temporal_request/m);
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});

describe('privateLoopbackHost', () => {
  linuxIt('picks a random 127.x.y.z outside 127.0.0.0/24 that takes listeners', async () => {
    const hosts = await Promise.all(Array.from({ length: 5 }, () => privateLoopbackHost()));
    expect(new Set(hosts).size).toBe(5);
    for (const host of hosts) expect(host).toMatch(/^127\.([1-9]\d{0,2})\.\d{1,3}\.\d{1,3}$/);
  });

  it('is 127.0.0.1 where the system answers on that address alone (macOS)', async () => {
    expect(await privateLoopbackHost('darwin')).toBe(LOOPBACK);
  });
});
