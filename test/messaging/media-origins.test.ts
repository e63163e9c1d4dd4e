/**
 * Where a media download may carry the token (messaging/media-client.ts): the service's own origin
 * and the origins of `mediaOrigins`, nowhere else, whether the URL comes from the caller or from
 * the service's metadata. The service is a real local HTTP server; the foreign https hosts, which
 * cannot exist on this machine, are undici MockAgent interceptors that record what reached them.
 * And the client's own checks of a token and of media origins, at construction.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { MessagingClient, ValidationError } from '../../messaging';
import { mediaOriginProblem } from '../../messaging/client-options';
import { ConfigError, loadConfig } from '../../worker/config';

const TOKEN = 'media-origin-token-5d1e';
const BYTES = Buffer.from('picture bytes');
const SHA = createHash('sha256').update(BYTES).digest('hex');
const CDN = 'https://media.cdn.example';
const EVIL = 'https://media.evil.example';

let service: Server;
let base: string;
let metadataUrl = `${EVIL}/m1`;
const reached: { origin: string; authorization: string | undefined }[] = [];
let agent: MockAgent;

beforeAll(async () => {
  service = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/agent/v1/media/m1')
      return res.end(
        JSON.stringify({
          messaging_product: 'agent_messaging',
          id: 'm1',
          url: metadataUrl,
          mime_type: 'image/png',
          sha256: SHA,
          file_size: BYTES.length,
        }),
      );
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}/agent/v1`;
  agent = new MockAgent();
  agent.enableNetConnect(/^127\.0\.0\.1:\d+$/);
  for (const origin of [CDN, EVIL]) {
    agent
      .get(origin)
      .intercept({ path: /.*/, method: 'GET' })
      .reply((opts) => {
        const headers = opts.headers as Record<string, string>;
        reached.push({ origin, authorization: headers.authorization ?? headers.Authorization });
        return {
          statusCode: 200,
          data: BYTES,
          responseOptions: { headers: { 'content-type': 'image/png' } },
        };
      })
      .persist();
  }
});
afterAll(async () => {
  await agent.close();
  await new Promise((r) => service.close(r));
});
beforeEach(() => {
  reached.length = 0;
});

const client = (mediaOrigins?: string[]) =>
  new MessagingClient({ token: TOKEN, baseUrl: base, dispatcher: agent, mediaOrigins, rateLimit: false });

describe('media downloads and the token', () => {
  it('never sends the token to an https host the caller names that is not allowed', async () => {
    const download = client().downloadMedia(`${EVIL}/stolen`, { sha256: SHA });
    await expect(download).rejects.toBeInstanceOf(ValidationError);
    await expect(client().downloadMedia(`${EVIL}/stolen`)).rejects.toThrow(
      /Refusing to download media from https:\/\/media\.evil\.example: the request would carry the token/,
    );
    expect(reached).toEqual([]);
  });

  it('never sends the token where the service metadata points, unless that origin is allowed', async () => {
    metadataUrl = `${EVIL}/m1`;
    await expect(client().downloadMedia('m1')).rejects.toThrow(/mediaOrigins \(AMSFLOW_MEDIA_ORIGINS/);
    expect(reached).toEqual([]);
  });

  it('downloads with the token from an origin of mediaOrigins', async () => {
    metadataUrl = `${CDN}/m1`;
    const media = await client([CDN]).downloadMedia('m1');
    expect(media.data.equals(BYTES)).toBe(true);
    expect(reached).toEqual([{ origin: CDN, authorization: `Bearer ${TOKEN}` }]);
    // Another origin is still refused by that client.
    await expect(client([CDN]).downloadMedia(`${EVIL}/x`)).rejects.toBeInstanceOf(ValidationError);
    expect(reached).toHaveLength(1);
  });
});

describe("the client's checks at construction", () => {
  it('refuses a token that cannot go in a header, naming the problem and never the token', () => {
    for (const token of [
      `${TOKEN}\n`,
      `a\r\nX-Injected: 1`,
      `${TOKEN}\u0000`,
      `${TOKEN}\u007f`,
      `${TOKEN}é`,
      'two words',
    ]) {
      let error: unknown;
      try {
        new MessagingClient({ token, baseUrl: base });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(
        /^Option token contains whitespace, a line break, a control or a non-ASCII character/,
      );
      expect((error as Error).message).not.toContain(token.slice(0, 8));
    }
  });

  it('refuses media origins that are not https origins', () => {
    expect(mediaOriginProblem(CDN)).toBeUndefined();
    expect(mediaOriginProblem('http://127.0.0.1:9000')).toBeUndefined();
    expect(mediaOriginProblem('http://cdn.example')).toMatch(/plain http to another host/);
    expect(mediaOriginProblem(`${CDN}/path`)).toMatch(/is not an origin/);
    expect(mediaOriginProblem('cdn.example')).toMatch(/is not an origin/);
    expect(() => client(['http://cdn.example'])).toThrow(
      /^Option mediaOrigins: "http:\/\/cdn.example" is plain http/,
    );
  });
});

describe('AMSFLOW_MEDIA_ORIGINS', () => {
  it("is the worker's mediaOrigins: comma-separated origins, each checked", () => {
    expect(loadConfig({ AMSFLOW_MEDIA_ORIGINS: `${CDN}, https://b.example:8443` }).mediaOrigins).toEqual([
      CDN,
      'https://b.example:8443',
    ]);
    expect(loadConfig({}).mediaOrigins).toBeUndefined();
    expect(() => loadConfig({ AMSFLOW_MEDIA_ORIGINS: `${CDN},http://b.example` })).toThrow(ConfigError);
    expect(() => loadConfig({ AMSFLOW_MEDIA_ORIGINS: `${CDN},http://b.example` })).toThrow(
      /AMSFLOW_MEDIA_ORIGINS: "http:\/\/b.example" is plain http to another host/,
    );
  });
});
