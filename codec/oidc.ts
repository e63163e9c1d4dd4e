/**
 * The codec server's OIDC check: the Temporal UI, configured with OIDC and `passAccessToken`
 * (`TEMPORAL_CODEC_PASS_ACCESS_TOKEN=true`), sends the operator's access token; it is verified
 * against the issuer's published keys (discovered from `<issuer>/.well-known/openid-configuration`,
 * or a `jwksUri` given), the audience, and optionally Temporal's `permissions` claim for the
 * namespace asked for. The same tokens Temporal's own JWT authorizer accepts.
 *
 * The documents are fetched here (parsed with zod, the key set kept and refreshed on amsflow's
 * terms); the token itself is verified by `jose` (signature with the asymmetric algorithms an
 * issuer signs with, never `none` or an HMAC whose "secret" would be a public key; issuer,
 * audience, validity window with a minute's leeway), its refusals said in one line.
 */
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';

/** One key of a JWK set, as far as zod goes; the rest is jose's to read. */
const JwkSchema = z.object({ kty: z.string(), kid: z.string().optional() }).passthrough();
type Jwk = z.infer<typeof JwkSchema>;

/** Options of {@link OidcVerifier}. */
export interface OidcOptions {
  /** The issuer, exactly as tokens name it (`iss`): https, or http on this machine only. */
  issuer: string;
  /** The audience tokens must name (`aud`): the UI's client id or API audience. */
  audience: string;
  /** The key set's URL; default: the issuer's discovery document's `jwks_uri`. */
  jwksUri?: string;
  /**
   * A claim listing Temporal permissions (`["default:read", "temporal-system:admin"]`, the shape of
   * Temporal's default claim mapper): when set, a token must grant the namespace asked for.
   */
  permissionsClaim?: string;
  /**
   * The least time between two fetches of the key set when tokens name keys it lacks (a rotation
   * at the issuer, or forged kids: the limit keeps them from hammering it). Default 30 s.
   */
  minRefetchMs?: number;
}

const DiscoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string().url() });
const JwksSchema = z.object({ keys: z.array(JwkSchema) });

/** How long a key set is trusted before it is fetched again, and the least time between fetches. */
const KEYS_TTL_MS = 10 * 60_000;
const REFETCH_AFTER_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;

/** The algorithms accepted: an issuer's asymmetric ones only. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** Clock skew tolerated on `exp` and `nbf`, seconds. */
const LEEWAY_S = 60;

/** Why a token is refused, in one line (never the token); `unknownKey`: worth one refresh of the keys. */
export function tokenRefusal(
  err: unknown,
  token: string,
  audience?: string,
): { reason: string; unknownKey: boolean } | undefined {
  const header = (() => {
    try {
      return decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
  })();
  const said = (reason: string, unknownKey = false) => ({ reason, unknownKey });
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return said(`no key of the issuer fits the token (kid ${JSON.stringify(header?.kid ?? null)})`, true);
  if (err instanceof errors.JWTExpired) return said('the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    const payload = err.payload;
    if (err.claim === 'nbf') return said('the token is not valid yet');
    if (err.claim === 'iss') return said(`the token's issuer is ${JSON.stringify(payload.iss ?? null)}`);
    if (err.claim === 'aud')
      return said(`the token is not for the audience ${JSON.stringify(audience ?? null)}`);
    return said(`the token's claim ${err.claim} ${err.reason === 'missing' ? 'is missing' : 'is not valid'}`);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return said("the token's signature does not verify");
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported)
    return said(`the token's algorithm ${JSON.stringify(header?.alg ?? null)} is not accepted`);
  if (err instanceof errors.JWKInvalid) return said("the issuer's key is not a usable public key");
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid)
    return said('the token is not a signed JWT (three base64url parts, JSON claims)');
  return undefined;
}

/** Why a URL may not carry the check's traffic (keys must come over https off this machine). */
export function oidcUrlProblem(value: string, what: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${what} ${JSON.stringify(value)} is not a URL`;
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && local)) return undefined;
  return `${what} ${JSON.stringify(value)} must be https (plain http only on this machine)`;
}

async function fetchJson<T>(url: string, schema: z.ZodType<T>, what: string): Promise<T> {
  const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${what} at ${url} answered ${res.status}`);
  const parsed = schema.safeParse(await res.json());
  if (!parsed.success) throw new Error(`${what} at ${url} is not one (${parsed.error.issues[0].message})`);
  return parsed.data;
}

/** Whether `claims` grant a role in `namespace` through `claim` (Temporal's permission strings). */
export function grantsNamespace(claims: JWTPayload, claim: string, namespace: string): boolean {
  const granted = (claims as Record<string, unknown>)[claim];
  if (!Array.isArray(granted)) return false;
  return granted.some(
    (p) =>
      typeof p === 'string' &&
      (p === 'temporal-system:admin' ||
        ['read', 'write', 'admin'].some((role) => p === `${namespace}:${role}`)),
  );
}

/** Verifies access tokens of one issuer, keeping its keys for {@link KEYS_TTL_MS}. */
export class OidcVerifier {
  private keys: Jwk[] | undefined;
  private fetchedAt = 0;
  private fetching: Promise<Jwk[]> | undefined;

  constructor(private readonly options: OidcOptions) {}

  private async jwksUri(): Promise<string> {
    if (this.options.jwksUri) return this.options.jwksUri;
    const issuer = this.options.issuer.replace(/\/+$/, '');
    const doc = await fetchJson(
      `${issuer}/.well-known/openid-configuration`,
      DiscoverySchema,
      'OIDC discovery',
    );
    if (doc.issuer !== this.options.issuer)
      throw new Error(`the discovery document names issuer ${doc.issuer}`);
    const problem = oidcUrlProblem(doc.jwks_uri, 'jwks_uri');
    if (problem) throw new Error(problem);
    return doc.jwks_uri;
  }

  /** The key set, fetched when missing, stale, or (at most every 30 s) when a token names an unknown key. */
  private async keySet(refresh: boolean): Promise<Jwk[]> {
    const age = Date.now() - this.fetchedAt;
    const minRefetch = this.options.minRefetchMs ?? REFETCH_AFTER_MS;
    if (this.keys && age < KEYS_TTL_MS && !(refresh && age >= minRefetch)) return this.keys;
    this.fetching ??= (async () => (await fetchJson(await this.jwksUri(), JwksSchema, 'a JWK set')).keys)()
      .then((keys) => {
        this.keys = keys;
        this.fetchedAt = Date.now();
        return keys;
      })
      .finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  /** The claims of `token` verified against `keys`. */
  private async verify(token: string, keys: Jwk[]): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys }), {
      issuer: this.options.issuer,
      audience: this.options.audience,
      algorithms: ALGORITHMS,
      clockTolerance: LEEWAY_S,
      requiredClaims: ['exp'],
    });
    return payload;
  }

  /**
   * Undefined when `token` is valid (for `namespace`, if the permissions claim is checked), else
   * why not. Throws when the issuer's keys cannot be fetched.
   */
  async refusal(token: string, namespace: string | undefined): Promise<string | undefined> {
    let claims: JWTPayload;
    try {
      claims = await this.verify(token, await this.keySet(false));
    } catch (err) {
      const refused = tokenRefusal(err, token, this.options.audience);
      if (!refused) throw err;
      if (!refused.unknownKey) return refused.reason;
      try {
        claims = await this.verify(token, await this.keySet(true));
      } catch (again) {
        const still = tokenRefusal(again, token, this.options.audience);
        if (still) return still.reason;
        throw again;
      }
    }
    const claim = this.options.permissionsClaim;
    if (claim === undefined) return undefined;
    if (namespace === undefined) return 'the request names no namespace to check the permissions for';
    return grantsNamespace(claims, claim, namespace)
      ? undefined
      : `the token grants nothing in namespace "${namespace}"`;
  }
}
