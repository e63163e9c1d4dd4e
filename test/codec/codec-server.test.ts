/**
 * The codec server (codec/codec-server.ts) over HTTP, as the Temporal UI calls it: encode
 * then decode, CORS for the allowed UI origins only, errors; and `amsflow codec-server`.
 */
import { randomBytes } from 'node:crypto';
import { EncryptionCodec, startCodecServer, type CodecServer } from '../../codec';
import { run } from '../client/cli-runner';

const keys = [{ id: 'k1', key: randomBytes(32) }];
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const plain: { metadata: Record<string, string>; data: string } = {
  metadata: { encoding: b64('json/plain') },
  data: b64('{"text":"echo zebra-codec"}'),
};
const UI = 'https://ui.example';

let server: CodecServer;
beforeAll(async () => {
  server = await startCodecServer({ codec: new EncryptionCodec(keys), port: 0, origins: [UI] });
});
afterAll(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('the codec server', () => {
  it('encodes, then decodes what it encoded (also under a namespace path)', async () => {
    const encoded = await post('/encode', { payloads: [plain] });
    expect(encoded.status).toBe(200);
    const { payloads } = (await encoded.json()) as { payloads: (typeof plain)[] };
    expect(Buffer.from(payloads[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(payloads[0].metadata['encryption-key-id'], 'base64').toString()).toBe('k1');
    expect(Buffer.from(payloads[0].data, 'base64').toString('latin1')).not.toContain('zebra');
    for (const path of ['/decode', '/default/decode']) {
      const decoded = await post(path, { payloads });
      expect(decoded.status).toBe(200);
      expect(await decoded.json()).toEqual({ payloads: [plain] });
    }
  });

  it('answers the UI origin with CORS headers (preflight and POST), other origins without', async () => {
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
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
    const answer = await post('/decode', { payloads: [plain] }, { origin: UI });
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI);
    const stranger = await post('/decode', { payloads: [plain] }, { origin: 'https://evil.example' });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses what is not the protocol, and payloads it cannot decrypt, with a reason', async () => {
    expect((await post('/decode', 'not json')).status).toBe(400);
    expect((await post('/decode', { payload: [] })).status).toBe(400);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    expect((await post('/other', { payloads: [] })).status).toBe(404);
    const foreign = await new EncryptionCodec([{ id: 'gone', key: randomBytes(32) }]).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('1') },
    ]);
    const json = {
      metadata: { encoding: b64('binary/encrypted'), 'encryption-key-id': b64('gone') },
      data: Buffer.from(foreign[0].data!).toString('base64'),
    };
    const refused = await post('/decode', { payloads: [json] });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/key "gone"/);
  });
});

describe('amsflow codec-server', () => {
  const keyEnv = { AMSFLOW_ENCRYPTION_KEYS: `k1:${keys[0].key.toString('base64')}` };

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
    expect((await run(['--help'], {})).out).toContain('amsflow codec-server [--port 8888]');
  });

  it('serves until SIGINT, printing where', async () => {
    const before = process.listenerCount('SIGINT');
    const running = run(['codec-server', '--port', '0', '--origin', UI], keyEnv);
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
  });
});
