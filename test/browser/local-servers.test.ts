/**
 * What a web page can do to amsflow's local servers, in headless Chromium: DNS rebinding (the
 * browser resolves `rebound.example` to 127.0.0.1, as an attacker's DNS would) reaches the
 * simulator's chat and control API, the codec server and the metrics endpoint as same-origin, and
 * each refuses it by its Host; an uploaded HTML file opened from the simulator's origin is a
 * download and runs nothing.
 */
import { randomBytes } from 'node:crypto';
import { type Browser, type BrowserContext } from 'playwright-core';
import { EncryptionCodec, startCodecServer, type CodecServer } from '../../codec';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { MetricsRegistry } from '../../worker/observability/metrics-registry';
import { startMetricsServer, type MetricsServer } from '../../worker/observability/metrics-server';
import { Readiness } from '../../worker/observability/readiness';
import { launchChromium } from '../support/chromium';

jest.setTimeout(120_000);

const REBOUND = 'rebound.example';

let sim: RunningSimulator;
let codec: CodecServer;
let metrics: MetricsServer;
let browser: Browser;
let context: BrowserContext;
const portOf = (url: string) => Number(new URL(url).port);

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  codec = await startCodecServer({
    codec: new EncryptionCodec([{ id: 'k', key: randomBytes(32) }]),
    port: 0,
  });
  metrics = await startMetricsServer({
    port: 0,
    host: '127.0.0.1',
    registry: new MetricsRegistry(),
    readiness: new Readiness(),
  });
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
  context = await browser.newContext({ acceptDownloads: true });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await Promise.all([sim?.close(), codec?.close(), metrics?.close()]);
});

describe('a page on a rebound DNS name', () => {
  it.each([
    ['the web chat', () => `http://${REBOUND}:${portOf(sim.origin)}/`],
    ['the control API', () => `http://${REBOUND}:${portOf(sim.origin)}/_control/transcript`],
    ['the metrics endpoint', () => `http://${REBOUND}:${metrics.port}/metrics`],
  ])('is refused by %s (403), though the browser reached it', async (_what, url) => {
    const page = await context.newPage();
    try {
      const res = await page.goto(url());
      expect(res?.status()).toBe(403);
      expect(await res?.text()).toMatch(/Host \\"rebound\.example\\" is not an address of this server/);
    } finally {
      await page.close();
    }
  });

  /** What a page the browser loaded from `origin` gets from `fetch` to its own origin (same-origin). */
  async function sameOrigin(
    origin: string,
    requests: { path: string; init?: RequestInit }[],
  ): Promise<number[]> {
    const page = await context.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async (all) => Promise.all(all.map(async ({ path, init }) => (await fetch(path, init)).status)),
        requests,
      );
    } finally {
      await page.close();
    }
  }

  it('cannot read or write through the control API', async () => {
    const statuses = await sameOrigin(`http://${REBOUND}:${portOf(sim.origin)}`, [
      {
        path: '/_control/human',
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'text', text: { body: 'rebound' } }),
        },
      },
      { path: '/_control/transcript' },
      { path: '/_control/faults', init: { method: 'DELETE' } },
    ]);
    expect(statuses).toEqual([403, 403, 403]);
    expect((await sim.control.transcript()).inbound).toEqual([]);
  });

  it('cannot decode through the codec server', async () => {
    const statuses = await sameOrigin(`http://${REBOUND}:${codec.port}`, [
      {
        path: '/decode',
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payloads":[]}' },
      },
    ]);
    expect(statuses).toEqual([403]);
  });
});

it("an uploaded HTML file opened from the simulator's origin is a download and runs nothing", async () => {
  const script = `<script>fetch('/_control/human',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({type:'text',text:{body:'ran'}})})</script>`;
  const { id } = await sim.control.uploadHumanMedia({
    bytes: Buffer.from(script),
    mimeType: 'text/html',
    filename: 'x.html',
  });
  const page = await context.newPage();
  try {
    const download = page.waitForEvent('download');
    await page.goto(sim.control.mediaUrl(id)).catch(() => undefined);
    expect((await download).suggestedFilename()).toBe('x.html');
    expect((await sim.control.transcript()).inbound).toEqual([]);
  } finally {
    await page.close();
  }
});
