/** Bad input everywhere: an error object with a fitting status, never a crash, state unchanged. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CREATOR, codeOf, startHarness, type Harness, type RequestOptions } from './support';

let h: Harness;
let webDir: string;
beforeAll(async () => {
  webDir = mkdtempSync(path.join(tmpdir(), 'sim-web-'));
  writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>chat</title>');
  writeFileSync(path.join(webDir, 'app.js'), 'console.log(1)');
  h = await startHarness({ maxBodyBytes: 2048, maxMediaBytes: 4096, webDir });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

const json = { 'content-type': 'application/json' };

/** Everything a rejected request must leave untouched. */
async function snapshot(): Promise<unknown> {
  const t = await h.sim.control.transcript();
  const conversation = await h.sim.control.conversation();
  return { sent: t.sent, inbound: t.inbound, entries: conversation.entries, typing: conversation.typing };
}

describe('agent API', () => {
  it.each<[string, number, string, string, RequestOptions]>([
    ['malformed JSON on POST /messages', 400, 'POST', '/messages', { body: '{"to": ', headers: json }],
    ['a JSON array body', 400, 'POST', '/messages', { body: '[1,2]', headers: json }],
    ['a JSON null body', 400, 'POST', '/messages', { body: 'null', headers: json }],
    ['an empty JSON body', 400, 'POST', '/messages', { body: '', headers: json }],
    [
      'text/plain content',
      415,
      'POST',
      '/messages',
      { body: '{}', headers: { 'content-type': 'text/plain' } },
    ],
    ['no content type', 415, 'POST', '/messages', { body: '{}' }],
    [
      'a body over maxBodyBytes',
      413,
      'POST',
      '/messages',
      { json: { to: CREATOR, type: 'text', text: { body: 'x'.repeat(3000) } } },
    ],
    ['malformed JSON on POST /statuses', 400, 'POST', '/statuses', { body: '{', headers: json }],
    ['a non-object body on POST /statuses', 400, 'POST', '/statuses', { body: '"read"', headers: json }],
    [
      'a multipart body without boundary',
      415,
      'POST',
      '/media',
      { body: 'x', headers: { 'content-type': 'multipart/form-data' } },
    ],
    [
      'a malformed multipart body',
      400,
      'POST',
      '/media',
      { body: 'garbage', headers: { 'content-type': 'multipart/form-data; boundary=zz' } },
    ],
    [
      'an upload over maxMediaBytes',
      413,
      'POST',
      '/media',
      { body: `--b\r\n${'x'.repeat(5000)}`, headers: { 'content-type': 'multipart/form-data; boundary=b' } },
    ],
    ['an unknown path', 404, 'GET', '/nothing-here', {}],
    ['the bare base path', 404, 'GET', '', {}],
    ['a trailing slash', 404, 'POST', '/messages/', { json: {} }],
    ['GET on /messages', 405, 'GET', '/messages', {}],
    ['PUT on /updates', 405, 'PUT', '/updates', {}],
    ['POST on /media/<id>', 405, 'POST', '/media/123', { json: {} }],
    ['a bad offset', 400, 'GET', '/updates?offset=x', {}],
    ['a repeated offset', 400, 'GET', '/updates?offset=1&offset=2', {}],
    ['a huge offset', 400, 'GET', `/updates?offset=${'9'.repeat(40)}`, {}],
  ])(
    '%s answers %i with an error object and changes nothing',
    async (_name, status, method, route, options) => {
      await h.sim.control.humanText('existing');
      const before = await snapshot();
      const reply = await h.agent.request(method, route, options);
      expect(reply.status).toBe(status);
      expect(reply.json).toEqual({
        error: expect.objectContaining({ code: expect.any(Number), message: expect.any(String) }),
      });
      expect(await snapshot()).toEqual(before);
    },
  );

  it('names the allowed methods on 405', async () => {
    const reply = await h.agent.request('PATCH', '/media/1');
    expect([reply.status, reply.headers.get('allow')]).toEqual([405, 'GET, DELETE']);
  });

  it('does not count requests rejected before the limiter (unreadable bodies)', async () => {
    for (let i = 0; i < 20; i++) await h.agent.request('POST', '/messages', { body: '{', headers: json });
    expect((await h.agent.sendText('still within budget')).status).toBe(200);
  });

  it('keeps serving after every kind of bad input', async () => {
    expect((await h.agent.poll({ offset: 0, timeout: 0 })).status).toBe(200);
    expect(codeOf(await h.agent.send({ to: CREATOR, type: 'reaction' }))).toBe(100);
    expect((await h.agent.sendText('fine')).status).toBe(200);
  });

  it('answers a malformed HTTP request with 400 and keeps serving', async () => {
    const { port } = new URL(h.sim.origin);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('BROKEN\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await h.agent.poll({ offset: 0, timeout: 0 })).status).toBe(200);
  });
});

describe('web chat files', () => {
  const get = (route: string, method = 'GET'): Promise<Response> =>
    fetch(`${h.sim.origin}${route}`, { method });

  it('serves / as index.html', async () => {
    const res = await get('/');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await res.text()).toContain('<title>chat</title>');
  });

  it('serves /<file>.js with a JavaScript content type', async () => {
    const res = await get('/app.js');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
  });

  it.each([
    '/missing.css',
    '/..%2F..%2Fetc%2Fpasswd',
    '/../package.json',
    '/sub/app.js',
    '/app.exe',
    '/.hidden.js',
  ])('answers 404 for %s', async (route) => {
    expect((await get(route)).status).toBe(404);
  });

  it('answers 405 for POST /', async () => {
    expect((await get('/', 'POST')).status).toBe(405);
  });
});
