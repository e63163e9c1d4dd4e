/**
 * The simulator's control API and web chat take requests only from the simulator's own callers:
 * a page on a rebound DNS name, another site's page and an embedding page are refused (403) on
 * every route; a body that is not JSON (what a page may POST across sites without a preflight) is
 * refused and changes nothing; media is served as a download that never runs as a page on the
 * simulator's origin. The agent API answers by its token, whatever the Host.
 */
import { startSimulator, type RunningSimulator } from '../../simulator';
import { ALL_REFUSED, probeStrangers, rawRequest } from '../support/local-request-probe';
import { startHarness, type Harness } from './support';

let h: Harness;
let port: number;
beforeAll(async () => {
  h = await startHarness({ receipts: { deliveredAfterMs: 0 } });
  port = Number(new URL(h.sim.origin).port);
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

const json = { 'content-type': 'application/json' };
const human = JSON.stringify({ type: 'text', text: { body: 'injected by a stranger' } });

describe('strangers', () => {
  it.each([
    ['GET', '/_control/transcript', {}],
    ['GET', '/_control/conversation', {}],
    ['GET', '/_control/log', {}],
    ['GET', '/_control/faults', {}],
    ['POST', '/_control/human', { extra: json, body: human }],
    [
      'POST',
      '/_control/faults',
      { extra: json, body: JSON.stringify({ endpoint: 'messages', fault: { kind: 'not_accepted' } }) },
    ],
    ['POST', '/_control/reset', { extra: json, body: '{}' }],
    ['GET', '/', {}],
    ['GET', '/app.js', {}],
  ] as const)('are refused on %s %s; its own caller is served', async (method, path, options) => {
    const probe = await probeStrangers(port, method, path, options);
    expect(probe.strangers).toEqual(ALL_REFUSED);
    expect(probe.own.status).toBe(200);
    // Nothing a stranger sent took effect.
    const transcript = await h.sim.control.transcript();
    expect(transcript.inbound.filter((m) => m.type === 'text').length).toBe(
      path === '/_control/human' ? 1 : 0,
    );
    expect((await h.sim.control.faults()).length).toBe(
      method === 'POST' && path === '/_control/faults' ? 1 : 0,
    );
  });

  it('are refused on the media of the chat', async () => {
    const { id } = await h.sim.control.uploadHumanMedia(Buffer.from('secret picture'), 'image/png');
    const probe = await probeStrangers(port, 'GET', `/_control/media/${id}`);
    expect(probe.strangers).toEqual(ALL_REFUSED);
    for (const body of probe.bodies) expect(body).not.toContain('secret picture');
    expect(probe.own.body).toBe('secret picture');
  });

  it('do not stop the agent API, which its token guards (agents may reach it by any name)', async () => {
    const answer = await rawRequest(port, 'GET', '/agent/v1/updates?offset=0&timeout=0', {
      host: `ams.proxy.example:${port}`,
      authorization: `Bearer ${h.sim.token}`,
    });
    expect(answer.status).toBe(200);
    const anonymous = await rawRequest(port, 'GET', '/agent/v1/updates?offset=0&timeout=0', {
      host: `ams.proxy.example:${port}`,
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('content types', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''])(
    'a %s body (a simple cross-site POST) is refused with 415 and injects nothing',
    async (type) => {
      const headers: Record<string, string> = {
        host: `127.0.0.1:${port}`,
        ...(type ? { 'content-type': type } : {}),
      };
      for (const path of ['/_control/human', '/_control/faults', '/_control/read', '/_control/clock']) {
        const answer = await rawRequest(port, 'POST', path, headers, human);
        expect({ path, status: answer.status }).toEqual({ path, status: 415 });
      }
      expect((await h.sim.control.transcript()).inbound).toEqual([]);
    },
  );

  it('media bytes go as application/octet-stream with their type in ?type=', async () => {
    const upload = (type: string, query: string) =>
      rawRequest(
        port,
        'POST',
        `/_control/media?${query}`,
        { host: `127.0.0.1:${port}`, 'content-type': type },
        'bytes',
      );
    expect((await upload('text/plain', 'type=text/plain')).status).toBe(415);
    expect((await upload('image/png', '')).status).toBe(415);
    expect((await upload('application/octet-stream', 'type=not%20a%20type')).status).toBe(400);
    const ok = await upload('application/octet-stream', 'type=IMAGE/PNG&filename=a.png');
    expect(ok.status).toBe(200);
    const { id } = JSON.parse(ok.body) as { id: string };
    const served = await fetch(h.sim.control.mediaUrl(id));
    expect(served.headers.get('content-type')).toBe('image/png');
  });
});

describe('media on the simulator origin', () => {
  const evil = {
    html: ['text/html', '<script>fetch("/_control/transcript")</script>', 'page.html'],
    svg: [
      'image/svg+xml',
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      'x".svg',
    ],
  } as const;

  it.each(Object.entries(evil))(
    'an uploaded %s is served as a sandboxed download, never as a page',
    async (_kind, [type, content, filename]) => {
      const { id } = await h.sim.control.uploadHumanMedia({
        bytes: Buffer.from(content),
        mimeType: type,
        filename,
      });
      const res = await fetch(h.sim.control.mediaUrl(id));
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-disposition')).toMatch(
        /^attachment; filename="[^"]+"; filename\*=UTF-8''/,
      );
      expect(res.headers.get('content-disposition')).not.toContain('x".svg');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toMatch(/^sandbox;.*default-src 'none'/);
      expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    },
  );

  it("the agent API's download carries the same headers", async () => {
    const id = await h.agent.uploadId(Buffer.from(evil.html[1]), 'text/html', 'page.html');
    const meta = (await h.agent.request('GET', `/media/${id}`)).json as { url: string };
    const res = await fetch(meta.url, { headers: { authorization: `Bearer ${h.sim.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the web chat page may not be framed by another site', async () => {
    const res = await fetch(`${h.sim.origin}/`);
    expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('a simulator on every interface', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ host: '0.0.0.0', allowedHosts: ['sim.test'] });
  });
  afterAll(() => sim.close());

  it('answers its allowed names and IP addresses, no other name', async () => {
    const simPort = Number(new URL(sim.origin).port);
    const get = (host: string) => rawRequest(simPort, 'GET', '/_control/transcript', { host });
    expect((await get(`sim.test:${simPort}`)).status).toBe(200);
    expect((await get(`10.0.0.9:${simPort}`)).status).toBe(200);
    const refused = await get(`evil.example:${simPort}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/--allowed-host/);
  });

  it('refuses a bad allowed host name at start', async () => {
    await expect(startSimulator({ allowedHosts: ['http://x'] })).rejects.toThrow(
      /allowedHosts: "http:\/\/x" is not a host name/,
    );
  });
});
