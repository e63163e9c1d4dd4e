/**
 * Who may use the codec server: a caller with the bearer token it was given (`--token-file`,
 * `AMSFLOW_CODEC_TOKEN`: scripts, `temporal --codec-auth`), or with an OIDC access token of the
 * configured issuer and audience (the Temporal UI with `passAccessToken`). Either is enough when
 * both are configured. Tokens are compared in constant time and never echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { registerSecret } from '../core/redact';
import { OidcVerifier, type OidcOptions } from './oidc';

/** Options of {@link CodecAuth}; neither means no authentication (loopback only). */
export interface CodecAuthOptions {
  /** The bearer token callers must present. */
  token?: string;
  /** OIDC access tokens (see oidc.ts). */
  oidc?: OidcOptions;
}

/** A refused request: 401 (no or a wrong credential), 403 (not for this namespace), 503 (issuer down). */
export interface AuthRefusal {
  status: 401 | 403 | 503;
  reason: string;
}

/** The least length of a configured token: guessing must be hopeless. */
export const MIN_TOKEN_LENGTH = 16;

/** Why `token` cannot be the codec server's token, or undefined (never echoes it). */
export function codecTokenProblem(token: string): string | undefined {
  if (/[^\x21-\x7e]/.test(token))
    return 'contains whitespace, a line break, a control or a non-ASCII character (a token has none)';
  if (token.length < MIN_TOKEN_LENGTH)
    return `is shorter than ${MIN_TOKEN_LENGTH} characters (make one with: openssl rand -base64 32)`;
  return undefined;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The credential check of one codec server. */
export class CodecAuth {
  private readonly tokenDigest: Buffer | undefined;
  private readonly oidc: OidcVerifier | undefined;

  constructor(options: CodecAuthOptions = {}) {
    if (options.token !== undefined) {
      const problem = codecTokenProblem(options.token);
      if (problem) throw new TypeError(`The codec server's token ${problem}`);
      registerSecret(options.token);
      this.tokenDigest = digest(options.token);
    }
    this.oidc = options.oidc ? new OidcVerifier(options.oidc) : undefined;
  }

  /** Whether any credential is required. */
  get required(): boolean {
    return this.tokenDigest !== undefined || this.oidc !== undefined;
  }

  /** Undefined when `authorization` (the header) lets the caller in for `namespace`, else why not. */
  async refusal(
    authorization: string | undefined,
    namespace: string | undefined,
  ): Promise<AuthRefusal | undefined> {
    if (!this.required) return undefined;
    const token = /^Bearer ([\x21-\x7e]+)$/i.exec(authorization?.trim() ?? '')?.[1];
    if (!token) return { status: 401, reason: 'authentication required: Authorization: Bearer <token>' };
    if (this.tokenDigest && timingSafeEqual(digest(token), this.tokenDigest)) return undefined;
    if (!this.oidc) return { status: 401, reason: 'the token is not accepted' };
    let reason: string | undefined;
    try {
      reason = await this.oidc.refusal(token, namespace);
    } catch (err) {
      return { status: 503, reason: `cannot check the token: ${(err as Error).message}` };
    }
    if (reason === undefined) return undefined;
    return { status: /grants nothing|names no namespace/.test(reason) ? 403 : 401, reason };
  }
}
