/**
 * Signed JWTs for the tests of authorization (the codec server's OIDC check, the Temporal
 * server's JWT authorizer): signing keys made here, tokens signed with node:crypto, and a key set
 * (JWKS) served over real HTTP on loopback.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: KeyObject;
  /** The public key as a JWK, as a key set publishes it. */
  jwk: Record<string, unknown>;
}

/** A new key pair for `alg`, named `kid`. */
export function signingKey(kid: string, alg: 'RS256' | 'ES256' | 'PS256'): SigningKey {
  const { privateKey, publicKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg } };
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** `claims` signed by `key` (`header` adds to or overrides the header). */
export function signJwt(
  key: SigningKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const head = b64url({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header });
  const body = b64url(claims);
  const data = Buffer.from(`${head}.${body}`);
  const signature =
    key.alg === 'ES256'
      ? sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : key.alg === 'PS256'
        ? sign('sha256', data, { key: key.privateKey, padding: 6, saltLength: 32 })
        : sign('sha256', data, key.privateKey);
  return `${head}.${body}.${signature.toString('base64url')}`;
}

/** A key set served on loopback, and tokens signed with its key. */
export interface TokenIssuer {
  /** The key set's URL (`http://127.0.0.1:port/.well-known/jwks.json`). */
  jwksUri: string;
  /** A token for `sub` with `permissions` (e.g. `["default:write"]`), valid for `validS` (an hour). */
  token(sub: string, permissions: string[], validS?: number): string;
  close(): Promise<void>;
}

/** Starts a key set server with one RS256 key. */
export async function startTokenIssuer(): Promise<TokenIssuer> {
  const key = signingKey('amsflow-test-1', 'RS256');
  const server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.statusCode = 404;
      return res.end();
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [key.jwk] }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUri: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    token: (sub, permissions, validS = 3600) => {
      const now = Math.floor(Date.now() / 1000);
      return signJwt(key, { sub, permissions, iat: now, exp: now + validS });
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
