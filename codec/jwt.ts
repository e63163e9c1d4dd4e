/**
 * Verification of a JWT access token (RFC 7519) against JSON Web Keys: the signature with one of
 * the asymmetric algorithms an OIDC issuer signs with (never `none`, never an HMAC whose "secret"
 * would be a public key), the issuer, the audience and the validity window. Pure but for the
 * signature check (node:crypto); the keys come from oidc.ts.
 */
import { createPublicKey, constants, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/** One key of a JWK set, as far as choosing it goes; the rest is node:crypto's to read. */
export const JwkSchema = z
  .object({
    kty: z.string(),
    kid: z.string().optional(),
    use: z.string().optional(),
    alg: z.string().optional(),
    crv: z.string().optional(),
  })
  .passthrough();
export type Jwk = z.infer<typeof JwkSchema>;

const HeaderSchema = z.object({ alg: z.string(), kid: z.string().optional(), typ: z.string().optional() });

const ClaimsSchema = z
  .object({
    iss: z.string(),
    aud: z.union([z.string(), z.array(z.string())]),
    exp: z.number(),
    nbf: z.number().optional(),
  })
  .passthrough();
export type JwtClaims = z.infer<typeof ClaimsSchema>;

interface Algorithm {
  hash: string | null;
  kty: string;
  crv?: string;
  pss?: boolean;
}

/** The algorithms accepted, with the key type each needs. */
const ALGORITHMS: Record<string, Algorithm> = {
  RS256: { hash: 'sha256', kty: 'RSA' },
  RS384: { hash: 'sha384', kty: 'RSA' },
  RS512: { hash: 'sha512', kty: 'RSA' },
  PS256: { hash: 'sha256', kty: 'RSA', pss: true },
  PS384: { hash: 'sha384', kty: 'RSA', pss: true },
  PS512: { hash: 'sha512', kty: 'RSA', pss: true },
  ES256: { hash: 'sha256', kty: 'EC', crv: 'P-256' },
  ES384: { hash: 'sha384', kty: 'EC', crv: 'P-384' },
  ES512: { hash: 'sha512', kty: 'EC', crv: 'P-521' },
  EdDSA: { hash: null, kty: 'OKP', crv: 'Ed25519' },
};

/** Clock skew tolerated on `exp` and `nbf`, seconds. */
const LEEWAY_S = 60;

/** Why a token is refused (never the token itself). */
export class JwtError extends Error {
  constructor(
    message: string,
    /** The signing key is not (yet) in the key set: worth one refresh of it. */
    readonly unknownKey = false,
  ) {
    super(message);
    this.name = 'JwtError';
  }
}

function part<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new JwtError(`the token's ${what} is not base64url JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new JwtError(`the token's ${what} lacks ${parsed.error.issues[0].path.join('.')}`);
  return parsed.data;
}

/** The key of `keys` that signed a token with this header; throws when none fits. */
function keyFor(keys: readonly Jwk[], alg: Algorithm, algName: string, kid: string | undefined): KeyObject {
  const fits = keys.filter(
    (k) =>
      k.kty === alg.kty &&
      (k.use === undefined || k.use === 'sig') &&
      (k.alg === undefined || k.alg === algName) &&
      (alg.crv === undefined || k.crv === alg.crv),
  );
  const chosen =
    kid === undefined ? (fits.length === 1 ? fits[0] : undefined) : fits.find((k) => k.kid === kid);
  if (!chosen)
    throw new JwtError(`no key of the issuer fits the token (kid ${JSON.stringify(kid ?? null)})`, true);
  try {
    return createPublicKey({ key: chosen as JsonWebKey, format: 'jwk' });
  } catch {
    throw new JwtError(`the issuer's key ${JSON.stringify(kid ?? null)} is not a usable public key`);
  }
}

function signatureValid(alg: Algorithm, key: KeyObject, data: Buffer, signature: Buffer): boolean {
  const options = alg.pss
    ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
    : alg.kty === 'EC'
      ? { key, dsaEncoding: 'ieee-p1363' as const }
      : { key };
  try {
    return verify(alg.hash, data, options, signature);
  } catch {
    return false;
  }
}

/** What a token must say about itself. */
export interface JwtExpectations {
  issuer: string;
  audience: string;
  /** Seconds since the epoch; default now. */
  now?: number;
}

/** The claims of `token` once its signature, issuer, audience and validity window check out. */
export function verifyJwt(token: string, keys: readonly Jwk[], expected: JwtExpectations): JwtClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)))
    throw new JwtError('the token is not a signed JWT (three base64url parts)');
  const header = part(HeaderSchema, parts[0], 'header');
  const alg = ALGORITHMS[header.alg];
  if (!alg) throw new JwtError(`the token's algorithm ${JSON.stringify(header.alg)} is not accepted`);
  const key = keyFor(keys, alg, header.alg, header.kid);
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
  if (!signatureValid(alg, key, signed, Buffer.from(parts[2], 'base64url')))
    throw new JwtError("the token's signature does not verify");
  const claims = part(ClaimsSchema, parts[1], 'claims');
  const now = expected.now ?? Math.floor(Date.now() / 1000);
  if (claims.iss !== expected.issuer)
    throw new JwtError(`the token's issuer is ${JSON.stringify(claims.iss)}`);
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
  if (!audiences.includes(expected.audience))
    throw new JwtError(`the token is not for the audience ${JSON.stringify(expected.audience)}`);
  if (claims.exp + LEEWAY_S <= now) throw new JwtError('the token has expired');
  if (claims.nbf !== undefined && claims.nbf - LEEWAY_S > now)
    throw new JwtError('the token is not valid yet');
  return claims;
}
