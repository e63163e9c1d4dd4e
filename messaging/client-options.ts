/**
 * The options of {@link MessagingClient} with their defaults, and their one-time check at the public
 * edge: a misconfigured client fails in its constructor, not on its first request.
 */
import { Agent, type Dispatcher } from 'undici';
import type { BackoffSettings } from '../core/backoff';
import { ValidationError } from './errors';
import { type Limits, resolveLimits } from './limits';
import { DEFAULT_UNREADABLE_RAW_BYTES } from './page-members';
import type { MediaKind } from './schemas';
import { checkRecipient, type MediaRule, type MediaRules, resolveMediaRules } from './validation';

/**
 * Default `baseUrl`. The spec names no public host, so this is a placeholder on the reserved
 * `.example` domain (RFC 2606): it can never resolve, so a client left unconfigured fails at once
 * with a message saying to set `baseUrl`, and never sends the token to a host someone could own.
 */
export const DEFAULT_BASE_URL = 'https://ams.example/agent/v1';

/** Options of {@link MessagingClient}. Only `token` is required. */
export interface MessagingClientOptions {
  /** The agent's API token, sent as `Authorization: Bearer <token>`. Required. Never logged or put in an error. */
  token: string;
  /**
   * Service root including the version prefix (ends in `/agent/v1`). Default {@link DEFAULT_BASE_URL},
   * a placeholder that never resolves: set it to your service's address (or a simulator's `url`).
   */
  baseUrl?: string;
  /**
   * Read timeout in ms: the longest silence while waiting for an answer or between body chunks.
   * Long polls get `timeout` seconds on top, uploads 1 s per MB on top. Default 30000.
   */
  timeoutMs?: number;
  /** Retries after a retryable failure, per call. Default 3. */
  maxRetries?: number;
  /** Lower bound of the exponential backoff with jitter, ms. Default 500. */
  backoffBaseMs?: number;
  /** Upper bound of the exponential backoff with jitter, ms. Default 30000. */
  backoffMaxMs?: number;
  /**
   * First wait after a 429 without Retry-After, ms; it doubles on each further one (5, 10, 20 s by
   * default, as the spec says). A Retry-After header is honoured exactly instead. Default 5000.
   */
  rateLimitBackoffMs?: number;
  /** Pace requests to the per-endpoint windows of `limits` (spec 8). Default true. */
  rateLimit?: boolean;
  /**
   * Retry a send after a 500, a dropped connection or a read timeout. Such a send may already have
   * been delivered, so a retry can duplicate it: opt in only if duplicates are acceptable. Default false.
   */
  retrySendOnServerError?: boolean;
  /**
   * Local checks before a request leaves: recipient form, text and caption lengths, reaction sends,
   * payload objects, MIME types and media sizes. Default true.
   */
  validate?: boolean;
  /**
   * A client that has never polled finds the recipient with one `offset=0&timeout=0` poll before its
   * first send that names none. Default true.
   */
  autoDiscover?: boolean;
  /**
   * undici Dispatcher (Agent, Pool, MockAgent, ProxyAgent...) to send requests through. It belongs to
   * the caller and is left open by {@link MessagingClient.close}. Default: an Agent owned and closed by
   * the client.
   */
  dispatcher?: Dispatcher;
  /** `User-Agent` header. Default: none (undici's own). */
  userAgent?: string;
  /** Per-endpoint budgets per rolling window; unspecified members keep the spec's (section 8). Default: spec. */
  limits?: Partial<Limits>;
  /** A known recipient (`user:<id>`) to start from. Default: none (learned from polls and sends, or discovered). */
  recipient?: string;
  /** Per-kind overrides of the accepted MIME types and size caps. Default: WIRE-CONVENTIONS' table. */
  mediaRules?: Partial<Record<MediaKind, Partial<MediaRule>>>;
  /** Largest media download accepted, bytes. Default 100000000 (the document cap). */
  maxDownloadBytes?: number;
  /**
   * Origins besides the service's own that media downloads may go to (`https://media.example`):
   * the request carries the token, so a media URL anywhere else is refused. https only (http only
   * on this machine). Default none.
   */
  mediaOrigins?: readonly string[];
  /**
   * A page member that does not fit its schema is handed on as type `unknown` (page-members.ts);
   * it keeps the message as received (`unknown.raw`) when that is at most this many JSON bytes.
   * Default 16384.
   */
  unreadableRawBytes?: number;
}

/**
 * The optional last argument of every method. `signal` cancels the in-flight request and any wait
 * (send queue, pacing, backoff); the call then rejects with RequestAbortedError.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

/** {@link MessagingClientOptions} checked, with every default filled in. */
export interface ResolvedClientOptions {
  token: string;
  /** Without trailing slashes, so paths can be appended. */
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  backoff: BackoffSettings;
  retrySendOnServerError: boolean;
  validate: boolean;
  autoDiscover: boolean;
  dispatcher: Dispatcher;
  /** The dispatcher was made here, so closing the client closes it. */
  ownsDispatcher: boolean;
  userAgent: string | undefined;
  rateLimit: boolean;
  limits: Readonly<Limits>;
  mediaRules: MediaRules;
  maxDownloadBytes: number;
  recipient: string | undefined;
  /** The service's origin and {@link MessagingClientOptions.mediaOrigins}: where downloads may go. */
  downloadOrigins: ReadonlySet<string>;
  unreadableRawBytes: number;
}

function nonNegative(value: number | undefined, name: string, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new ValidationError(`Option ${name} must be a non-negative ${integer ? 'integer' : 'number'}.`);
  }
  return value;
}

/** Hosts plain http may carry the token to: this machine only. */
const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

/**
 * Why `value` cannot be a media origin (`https://media.example[:port]`, exactly as `URL.origin`
 * writes it), or undefined. Plain http only to this machine: the request carries the token.
 */
export function mediaOriginProblem(value: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || url.origin !== value || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return `${JSON.stringify(value)} is not an origin such as https://media.example`;
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    return `${JSON.stringify(value)} is plain http to another host: the token would travel unencrypted; use https`;
  return undefined;
}

/**
 * Why `token` cannot go in an `Authorization` header, or undefined. A line break or a control
 * character would fail later as a confusing transport error (or split the header); never echoed.
 */
export function tokenProblem(token: string): string | undefined {
  return /[^\x21-\x7e]/.test(token)
    ? 'contains whitespace, a line break, a control or a non-ASCII character (a token has none: check how it was pasted)'
    : undefined;
}

function checkedBaseUrl(baseUrl: string): string {
  try {
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ValidationError(
      'Option baseUrl must be an absolute http(s) URL ending in the version prefix (/agent/v1).',
    );
  }
  return baseUrl.replace(/\/+$/, '');
}

/** Checks `options` and fills in the defaults; throws a ValidationError naming the first bad option. */
export function resolveClientOptions(options: MessagingClientOptions): ResolvedClientOptions {
  if (typeof options?.token !== 'string' || options.token.length === 0) {
    throw new ValidationError('Option token is required: the agent API token (a non-empty string).');
  }
  const badToken = tokenProblem(options.token);
  if (badToken) throw new ValidationError(`Option token ${badToken}.`);
  const baseUrl = checkedBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
  for (const origin of options.mediaOrigins ?? []) {
    const problem = mediaOriginProblem(origin);
    if (problem) throw new ValidationError(`Option mediaOrigins: ${problem}.`);
  }
  const timeoutMs = nonNegative(options.timeoutMs, 'timeoutMs', 30_000);
  if (timeoutMs === 0) throw new ValidationError('Option timeoutMs must be positive.');
  const maxRetries = nonNegative(options.maxRetries, 'maxRetries', 3, true);
  const baseMs = nonNegative(options.backoffBaseMs, 'backoffBaseMs', 500);
  const maxMs = nonNegative(options.backoffMaxMs, 'backoffMaxMs', 30_000);
  if (maxMs < baseMs) throw new ValidationError('Option backoffMaxMs must not be below backoffBaseMs.');
  const rateLimitBaseMs = nonNegative(options.rateLimitBackoffMs, 'rateLimitBackoffMs', 5_000);
  let limits: Readonly<Limits>;
  try {
    limits = Object.freeze(resolveLimits(options.limits));
  } catch (err) {
    throw new ValidationError(`Option ${(err as Error).message}.`);
  }
  const mediaRules = resolveMediaRules(options.mediaRules);
  const maxDownloadBytes = nonNegative(options.maxDownloadBytes, 'maxDownloadBytes', 100_000_000, true);
  const unreadableRawBytes = nonNegative(
    options.unreadableRawBytes,
    'unreadableRawBytes',
    DEFAULT_UNREADABLE_RAW_BYTES,
    true,
  );
  const validate = options.validate ?? true;
  if (validate && options.recipient !== undefined) checkRecipient(options.recipient);
  return {
    token: options.token,
    baseUrl,
    timeoutMs,
    maxRetries,
    backoff: { baseMs, maxMs, rateLimitBaseMs },
    retrySendOnServerError: options.retrySendOnServerError ?? false,
    validate,
    autoDiscover: options.autoDiscover ?? true,
    // Made only once every option has passed, so a rejected configuration leaves nothing open.
    dispatcher: options.dispatcher ?? new Agent(),
    ownsDispatcher: options.dispatcher === undefined,
    userAgent: options.userAgent,
    rateLimit: options.rateLimit !== false,
    limits,
    mediaRules,
    maxDownloadBytes,
    recipient: options.recipient,
    downloadOrigins: new Set([new URL(baseUrl).origin, ...(options.mediaOrigins ?? [])]),
    unreadableRawBytes,
  };
}
