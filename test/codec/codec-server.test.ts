/**
 * The codec server (codec/codec-server.ts) over HTTP, as the Temporal UI calls it, and as a
 * stranger would: decode for the namespace asked for, CORS for the allowed UI origins; a foreign
 * Origin, a rebound Host, a path that is not exactly its own, a text/plain body, a missing or wrong
 * token are refused before anything is decoded; /encode is off unless allowed and authenticated;
 * it refuses to listen beyond loopback without a credential. And `amsflow codec-server`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CodecServerConfigError,
  EncryptionCodec,
  startCodecServer,
  type CodecServer,
  type CodecServerOptions,
} from '../../codec';
import { run } from '../client/cli-runner';

const keys = [{ id: 'k1', key: randomBytes(32) }];
const codec = new EncryptionCodec(keys);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const plain: { metadata: Record<string, string>; data: string } = {
  metadata: { encoding: b64('json/plain') },
  data: b64('{"text":"echo zebra-codec"}'),
};
const UI = 'https://ui.example';
const TOKEN = randomBytes(24).toString('base64url');

/** `plain` encrypted for `namespace`, as a worker of that namespace wrote it, in the protocol's JSON. */
async function sealedFor(namespace: string) {
  const inner = {
    metadata: { encoding: Buffer.from('json/plain') },
    data: Buffer.from(plain.data, 'base64'),
  };
  const [p] = await codec.encodeFor([inner], { namespace, workflowId: 'agent:a' });
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data!).toString('base64'),
  };
}

const servers: CodecServer[] = [];
async function serve(options: Partial<CodecServerOptions> = {}): Promise<CodecServer> {
  const server = await startCodecServer({ codec, port: 0, origins: [UI], ...options });
  servers.push(server);
  return server;
}
afterAll(() => Promise.all(servers.map((s) => s.close())));

const post = (server: CodecServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** A raw request, so that Host and the path go out exactly as written (fetch would fix them). */
function raw(server: CodecServer, path: string, headers: Record<string, string>, body = '') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the codec server, as the UI calls it', () => {
  let server: CodecServer;
  beforeAll(async () => {
    server = await serve();
  });

  it('decodes what a worker of the namespace wrote (also under a namespace path)', async () => {
    const payloads = [await sealedFor('default')];
    for (const path of ['/decode', '/default/decode', '//decode', '/x/../decode']) {
      const decoded = await post(server, path, { payloads });
      expect({ path, status: decoded.status }).toEqual({ path, status: 200 });
      expect(await decoded.json()).toEqual({ payloads: [plain] });
    }
  });

  it('decodes a payload only for the namespace it was written for', async () => {
    const payloads = [await sealedFor('ns-a')];
    expect((await post(server, '/ns-a/decode', { payloads }, { 'x-namespace': 'ns-a' })).status).toBe(200);
    const other = await post(server, '/ns-b/decode', { payloads }, { 'x-namespace': 'ns-b' });
    expect(other.status).toBe(400);
    const text = await other.text();
    expect(text).toContain('written for workflow \\"agent:a\\" in namespace \\"ns-a\\"');
    expect(text).not.toContain('zebra');
    // The path and the header must agree.
    expect((await post(server, '/ns-a/decode', { payloads }, { 'x-namespace': 'ns-b' })).status).toBe(400);
  });

  it('answers the UI origin with CORS headers (preflight and POST)', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    const answer = await post(server, '/decode', { payloads: [await sealedFor('default')] }, { origin: UI });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI);
  });
});

describe('the codec server, as a stranger calls it', () => {
  let server: CodecServer;
  let payloads: unknown[];
  beforeAll(async () => {
    server = await serve();
    payloads = [await sealedFor('default')];
  });

  it.each([
    ['a foreign Origin', { origin: 'http://evil.example' }],
    ['Origin null', { origin: 'null' }],
    ['another port of this host', { origin: 'http://127.0.0.1:1' }],
  ])('refuses %s: 403, nothing decoded', async (_what, headers) => {
    const answer = await post(server, '/decode', { payloads }, headers);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(await answer.text()).not.toContain('zebra');
    // Not even a preflight.
    const preflight = await fetch(`${server.url}/decode`, { method: 'OPTIONS', headers });
    expect(preflight.status).toBe(403);
  });

  it('refuses a rebound Host (DNS rebinding): 403, nothing decoded', async () => {
    for (const host of [`evil.example:${server.port}`, `localhost.evil.example:${server.port}`]) {
      const answer = await raw(
        server,
        '/decode',
        { host, 'x-namespace': 'default' },
        JSON.stringify({ payloads }),
      );
      expect({ host, status: answer.status }).toEqual({ host, status: 403 });
      expect(answer.body).not.toContain('zebra');
    }
    const own = await raw(
      server,
      '/decode',
      { host: `localhost:${server.port}` },
      JSON.stringify({ payloads }),
    );
    expect(own.status).toBe(200);
  });

  it('serves exactly its paths after normalisation', async () => {
    for (const path of [
      '/a/b/c/../decode',
      '/decode/',
      '/decode/x',
      '/a%2fb/decode',
      '/other',
      '/',
      '/ns/x/decode',
    ]) {
      const answer = await raw(server, path, {}, JSON.stringify({ payloads }));
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.body).not.toContain('zebra');
    }
    expect((await raw(server, '/%2e%2e/decode?x=1', {}, JSON.stringify({ payloads }))).status).toBe(200);
  });

  it('refuses a body that is not JSON (a simple cross-origin POST) and what is not the protocol', async () => {
    const simple = await post(server, '/decode', JSON.stringify({ payloads }), {
      'content-type': 'text/plain',
    });
    expect(simple.status).toBe(415);
    expect((await post(server, '/decode', 'not json')).status).toBe(400);
    expect((await post(server, '/decode', { payload: [] })).status).toBe(400);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
  });

  it('is no encryption oracle: /encode is off', async () => {
    const answer = await post(server, '/encode', { payloads: [plain] });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toMatch(/--allow-encode/);
  });

  it('names an unknown key, never the data', async () => {
    const foreign = await new EncryptionCodec([{ id: 'gone', key: randomBytes(32) }]).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('1') },
    ]);
    const json = {
      metadata: Object.fromEntries(
        Object.entries(foreign[0].metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
      data: Buffer.from(foreign[0].data!).toString('base64'),
    };
    const refused = await post(server, '/decode', { payloads: [json] });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/key "gone"/);
  });
});

describe('the codec server with a token', () => {
  it('refuses to listen beyond loopback, or to encode, without a credential', async () => {
    await expect(startCodecServer({ codec, port: 0, host: '0.0.0.0' })).rejects.toThrow(
      CodecServerConfigError,
    );
    await expect(startCodecServer({ codec, port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /without authentication/,
    );
    await expect(startCodecServer({ codec, port: 0, allowEncode: true })).rejects.toThrow(
      /--allow-encode needs/,
    );
    await expect(startCodecServer({ codec, port: 0, auth: { token: 'short' } })).rejects.toThrow(
      /shorter than 16/,
    );
  });

  it('listening on every interface, it serves only callers with the token', async () => {
    const server = await serve({ host: '0.0.0.0', auth: { token: TOKEN }, allowEncode: true });
    const payloads = [await sealedFor('default')];
    const none = await post(server, '/decode', { payloads });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await post(server, '/decode', { payloads }, { authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('zebra');
    expect((await post(server, '/decode', { payloads }, { authorization: `Basic ${TOKEN}` })).status).toBe(
      401,
    );
    const right = await post(server, '/decode', { payloads }, { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    // Encode, allowed and authenticated, binds what it makes to the namespace asked for.
    const encoded = await post(
      server,
      '/encode',
      { payloads: [plain] },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(encoded.status).toBe(200);
    const made = ((await encoded.json()) as { payloads: unknown[] }).payloads;
    const back = await post(server, '/decode', { payloads: made }, { authorization: `Bearer ${TOKEN}` });
    expect(await back.json()).toEqual({ payloads: [plain] });
    const elsewhere = await post(
      server,
      '/other/decode',
      { payloads: made },
      { authorization: `Bearer ${TOKEN}`, 'x-namespace': 'other' },
    );
    expect(elsewhere.status).toBe(400);
    expect((await post(server, '/encode', { payloads: [plain] })).status).toBe(401);
  });

  it('serves only its namespaces when told', async () => {
    const server = await serve({ namespaces: ['default'] });
    const payloads = [await sealedFor('default')];
    expect((await post(server, '/decode', { payloads })).status).toBe(200);
    expect((await post(server, '/decode', { payloads }, { 'x-namespace': 'other' })).status).toBe(403);
    const unnamed = await raw(server, '/decode', {}, JSON.stringify({ payloads }));
    expect(unnamed.status).toBe(400);
  });
});

describe('amsflow codec-server', () => {
  const keyEnv = { AMSFLOW_ENCRYPTION_KEYS: `k1:${keys[0].key.toString('base64')}` };
  const tokenFile = (content: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'amsflow-codec-')), 'token');
    writeFileSync(file, content);
    return file;
  };

  it('needs the keys, and takes only its own options', async () => {
    expect(await run(['codec-server', '--port', '0'], {})).toMatchObject({
      code: 2,
      err: expect.stringContaining('codec-server needs AMSFLOW_ENCRYPTION_KEYS') as string,
    });
    expect(await run(['codec-server', '--port', '0'], { AMSFLOW_ENCRYPTION_KEYS: 'k1:short' })).toMatchObject(
      {
        code: 2,
        err: expect.stringContaining('AMSFLOW_ENCRYPTION_KEYS: entry 1 ("k1")') as string,
      },
    );
    expect((await run(['codec-server', '--port', 'x'], keyEnv)).err).toMatch(/--port must be a port/);
    expect((await run(['codec-server', '--agent', 'a'], keyEnv)).err).toMatch(/does not take --agent/);
    expect((await run(['state', '--origin', UI], keyEnv)).err).toMatch(/state does not take --origin/);
    expect((await run(['codec-server', '--allowed-host', 'http://x'], keyEnv)).err).toMatch(
      /is not a host name/,
    );
    expect((await run(['--help'], {})).out).toContain('amsflow codec-server [--port 8888]');
  });

  it('refuses a setup that would serve anyone, naming what to give, never the token', async () => {
    const open = await run(['codec-server', '--port', '0', '--host', '0.0.0.0'], keyEnv);
    expect(open).toMatchObject({
      code: 2,
      err: expect.stringMatching(/without authentication.*--token-file/s) as string,
    });
    const short = await run(
      ['codec-server', '--port', '0', '--token-file', tokenFile('s3cr3t-short\n')],
      keyEnv,
    );
    expect(short.code).toBe(2);
    expect(short.err).toMatch(/is shorter than 16 characters/);
    expect(short.err).not.toContain('s3cr3t');
    const newline = await run(['codec-server', '--port', '0'], {
      ...keyEnv,
      AMSFLOW_CODEC_TOKEN: `${TOKEN}\nx`,
    });
    expect(newline.err).toMatch(/AMSFLOW_CODEC_TOKEN contains whitespace, a line break/);
    expect(newline.err).not.toContain(TOKEN);
    const both = await run(['codec-server', '--token-file', tokenFile(TOKEN)], {
      ...keyEnv,
      AMSFLOW_CODEC_TOKEN: TOKEN,
    });
    expect(both.err).toMatch(/not both/);
    expect((await run(['codec-server', '--oidc-issuer', 'https://id.example'], keyEnv)).err).toMatch(
      /needs --oidc-audience/,
    );
    expect((await run(['codec-server', '--oidc-audience', 'ui'], keyEnv)).err).toMatch(/needs --oidc-issuer/);
    const plainHttp = await run(
      ['codec-server', '--oidc-issuer', 'http://id.example', '--oidc-audience', 'ui'],
      keyEnv,
    );
    expect(plainHttp.err).toMatch(/must be https/);
    expect((await run(['codec-server', '--allow-encode'], keyEnv)).err).toMatch(
      /--allow-encode needs authentication/,
    );
  });

  it('serves until SIGINT, printing where and whom', async () => {
    const before = process.listenerCount('SIGINT');
    const running = run(
      ['codec-server', '--port', '0', '--origin', UI, '--token-file', tokenFile(`${TOKEN}\n`)],
      keyEnv,
    );
    // Started once it prints; then a SIGINT (its own handler only: jest's process lives on).
    const started = Date.now();
    while (process.listenerCount('SIGINT') === before && Date.now() - started < 5_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    process.emit('SIGINT');
    const { code, out } = await running;
    expect(code).toBe(0);
    expect(out).toMatch(/codec server at http:\/\/127\.0\.0\.1:\d+ \(keys k1; current k1\)/);
    expect(out).toContain(`browsers allowed from ${UI}`);
    expect(out).toContain('callers need a bearer token; encode off; namespaces any');
    expect(out).not.toContain(TOKEN);
  });
});
