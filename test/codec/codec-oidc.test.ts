/**
 * The codec server's OIDC check (codec/oidc.ts, the token verified by jose), as the Temporal UI uses it with
 * `passAccessToken`: an issuer on this machine (its discovery document and key set over real
 * HTTP, keys made here) signs access tokens; the codec server accepts valid ones of its audience,
 * and refuses expired, foreign, forged, unsigned and HMAC-confused ones, and tokens that grant
 * nothing in the namespace asked for. A rotated key is found by fetching the key set again.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EncryptionCodec, startCodecServer, type CodecServer } from '../../codec';
import { signJwt as jwt, signingKey, type SigningKey } from '../support/token-issuer';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const codec = new EncryptionCodec([{ id: 'k1', key: randomBytes(32) }]);
const AUDIENCE = 'temporal-ui';

let issuerServer: Server;
let issuer: string;
const published: SigningKey[] = [];
let jwksFetches = 0;
let codecServer: CodecServer;
const now = () => Math.floor(Date.now() / 1000);
let claims: (extra?: Record<string, unknown>) => Record<string, unknown>;

beforeAll(async () => {
  issuerServer = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
      return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    if (req.url === '/keys') {
      jwksFetches += 1;
      return res.end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  claims = (extra = {}) => ({ iss: issuer, aud: [AUDIENCE, 'other'], sub: 'op', exp: now() + 300, ...extra });
  published.push(signingKey('rsa-1', 'RS256'), signingKey('ec-1', 'ES256'), signingKey('ps-1', 'PS256'));
  codecServer = await startCodecServer({
    codec,
    port: 0,
    host: '0.0.0.0',
    auth: { oidc: { issuer, audience: AUDIENCE, permissionsClaim: 'permissions' } },
  });
});
afterAll(async () => {
  await codecServer?.close();
  await new Promise((r) => issuerServer?.close(r));
});

const decode = (token: string, namespace = 'default') =>
  fetch(`${codecServer.url}/decode`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-namespace': namespace,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ payloads: [] }),
  });
const granted = { permissions: ['default:read'] };

it('accepts valid access tokens of the audience, signed with RS256, ES256 or PS256', async () => {
  for (const key of published) {
    const answer = await decode(jwt(key, claims(granted)));
    expect({ kid: key.kid, status: answer.status }).toEqual({ kid: key.kid, status: 200 });
  }
  const admin = await decode(
    jwt(published[0], claims({ permissions: ['temporal-system:admin'] })),
    'anything',
  );
  expect(admin.status).toBe(200);
});

it.each([
  ['expired', () => jwt(published[0], claims({ ...granted, exp: now() - 600 })), 401, /expired/],
  ['not valid yet', () => jwt(published[0], claims({ ...granted, nbf: now() + 600 })), 401, /not valid yet/],
  [
    'for another audience',
    () => jwt(published[0], claims({ ...granted, aud: 'someone-else' })),
    401,
    /audience/,
  ],
  [
    'of another issuer',
    () => jwt(published[0], claims({ ...granted, iss: 'https://evil.example' })),
    401,
    /issuer/,
  ],
  [
    'signed by a key the issuer never published',
    () => jwt({ ...signingKey('rsa-1', 'RS256') }, claims(granted)),
    401,
    /signature does not verify/,
  ],
  [
    'with its claims changed after signing',
    () => {
      const [h, , s] = jwt(published[0], claims(granted)).split('.');
      return `${h}.${b64url(claims({ permissions: ['temporal-system:admin'] }))}.${s}`;
    },
    401,
    /signature/,
  ],
  [
    'unsigned (alg none)',
    () => `${b64url({ alg: 'none' })}.${b64url(claims(granted))}.`,
    401,
    /algorithm "none"/,
  ],
  [
    'HMAC-signed with the public key as the secret',
    () => {
      const head = b64url({ alg: 'HS256', kid: 'rsa-1' });
      const body = b64url(claims(granted));
      const secret = JSON.stringify(published[0].jwk);
      return `${head}.${body}.${createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url')}`;
    },
    401,
    /algorithm "HS256"/,
  ],
  ['not a JWT', () => 'opaque-access-token-123', 401, /not a signed JWT/],
  [
    'without the namespace in its permissions',
    () => jwt(published[0], claims({ permissions: ['other:admin'] })),
    403,
    /grants nothing/,
  ],
])('refuses a token %s', async (_what, token, status, reason) => {
  const answer = await decode(token());
  expect(answer.status).toBe(status);
  expect(((await answer.json()) as { error: string }).error).toMatch(reason);
});

it('finds a key the issuer rotated in by fetching its key set again, at most so often', async () => {
  const eager = await startCodecServer({
    codec,
    port: 0,
    auth: { oidc: { issuer, audience: AUDIENCE, minRefetchMs: 0 } },
  });
  try {
    const call = (server: CodecServer, token: string) =>
      fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ payloads: [] }),
      });
    expect((await call(eager, jwt(published[0], claims()))).status).toBe(200);
    const rotated = signingKey('rsa-2', 'RS256');
    published.push(rotated);
    const before = jwksFetches;
    // The default server fetched its set moments ago: a token naming a new key is refused, the issuer left alone.
    expect((await decode(jwt(rotated, claims(granted)))).status).toBe(401);
    expect(jwksFetches).toBe(before);
    expect((await call(eager, jwt(rotated, claims()))).status).toBe(200);
    expect(jwksFetches).toBe(before + 1);
    // A forged kid costs one fetch, then is refused.
    expect((await call(eager, jwt(signingKey('forged', 'RS256'), claims()))).status).toBe(401);
    expect(jwksFetches).toBe(before + 2);
  } finally {
    await eager.close();
  }
});
