/**
 * Classification of request outcomes (spec 7): which error an answer or a failure becomes, and
 * whether it may be retried.
 *
 * Two kinds of request:
 * - `send` (POST /messages): repeating it after an unknown outcome can deliver the message twice,
 *   so only "not sent" outcomes are retryable (429, 503/131016, a failed connect). A 500, dropped
 *   connection or read timeout is an {@link AmbiguousSendError}, retried only with
 *   `retrySendOnServerError`. A 2xx is never repeated, even when its body is unreadable.
 * - `repeatable` (everything else): repeating is harmless (reads, mark read, typing, delete; an
 *   upload repeated at worst leaves an unused media item that expires), so 429, 5xx and transport
 *   failures are retryable.
 */
import {
  AmbiguousSendError,
  ApiError,
  AuthError,
  type HttpAnswer,
  NotAcceptedError,
  PollReplacedError,
  RateLimitError,
  TransportError,
  UnexpectedResponseError,
} from './errors';
import { parseRetryAfterMs } from './retry-after';
import type { HttpResponse } from './transport';
import { AUTH_ERROR_CODE, ErrorBodySchema, NOT_ACCEPTED_ERROR_CODE } from './schemas';

export type RequestKind = 'send' | 'repeatable';

/** The answer of a request, read and redacted. */
export interface ReadAnswer extends HttpAnswer {
  /** The raw body text (token redacted). */
  raw: string;
}

export interface Classified {
  error: Error;
  retryable: boolean;
  /** For retryable 429s: the Retry-After wait, if the service gave one. */
  retryAfterMs?: number;
  /** True when the request may have taken effect (sends only). */
  mayHaveLanded: boolean;
}

/** Replaces every occurrence of `secret` in `text`. */
export function redact(text: string, secret: string): string {
  return secret.length > 0 && text.includes(secret) ? text.split(secret).join('[redacted]') : text;
}

/** Decodes a body as text, parses JSON when it is JSON, and picks out `error.code`. */
export function readAnswer(res: HttpResponse, secret: string): ReadAnswer {
  const raw = redact(res.body.toString('utf8'), secret);
  let body: unknown = raw;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      body = raw;
    }
  }
  const parsed = ErrorBodySchema.safeParse(body);
  return { status: res.status, errorCode: parsed.success ? parsed.data.error.code : undefined, body, raw };
}

function serviceMessage(answer: ReadAnswer): string {
  const parsed = ErrorBodySchema.safeParse(answer.body);
  const text = parsed.success ? parsed.data.error.message : undefined;
  const code = answer.errorCode === undefined ? '' : ` code ${answer.errorCode}`;
  return `HTTP ${answer.status}${code}${text ? `: ${text}` : ''}`;
}

/** Classifies a non-2xx answer to `target` (e.g. "POST /messages"). */
export function classifyAnswer(
  kind: RequestKind,
  target: string,
  res: HttpResponse,
  answer: ReadAnswer,
  options: { retrySendOnServerError: boolean; isPoll: boolean },
): Classified {
  const { status, errorCode } = answer;
  const what = serviceMessage(answer);
  if (status === 401 || errorCode === AUTH_ERROR_CODE) {
    return {
      error: new AuthError(
        `${target} was refused (${what}): the token is bad, missing or revoked. Check the agent's token; ` +
          'retrying will not help.',
        answer,
      ),
      retryable: false,
      mayHaveLanded: false,
    };
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs(res.headers['retry-after']);
    const wait = retryAfterMs === undefined ? 'back off' : `wait ${retryAfterMs} ms (Retry-After)`;
    return {
      error: new RateLimitError(
        `${target} was rate limited (${what}); nothing was sent. ${wait} and retry, or lower the request ` +
          'rate (several clients may share this token).',
        answer,
        retryAfterMs,
      ),
      retryable: true,
      retryAfterMs,
      mayHaveLanded: false,
    };
  }
  if (status === 503 && errorCode === NOT_ACCEPTED_ERROR_CODE) {
    return {
      error: new NotAcceptedError(
        `${target}: the message was not accepted for delivery (${what}); nothing was sent. Retry later.`,
        answer,
      ),
      retryable: true,
      mayHaveLanded: false,
    };
  }
  if (status === 409 && options.isPoll) {
    return {
      error: new PollReplacedError(
        `${target} was replaced by a newer poll for the same agent (${what}). Run a single poll loop per ` +
          'agent (token); another process or client is polling too.',
        answer,
      ),
      retryable: false,
      mayHaveLanded: false,
    };
  }
  if (status >= 500) {
    if (kind === 'send') {
      return {
        error: new AmbiguousSendError(
          `${target} failed with a server error (${what}); the message may or may not have been sent. ` +
            'Do not repeat it unless a duplicate is acceptable (retrySendOnServerError); check the ' +
            'receipts of the conversation instead.',
          'server_error',
          answer,
        ),
        retryable: options.retrySendOnServerError,
        mayHaveLanded: true,
      };
    }
    return {
      error: new ApiError(
        `${target} failed with a server error (${what}). It is safe to retry later.`,
        answer,
      ),
      retryable: true,
      mayHaveLanded: false,
    };
  }
  if (status >= 400) {
    return {
      error: new ApiError(
        `${target} was rejected (${what}); nothing was sent. Fix the request; do not retry it.`,
        answer,
      ),
      retryable: false,
      mayHaveLanded: false,
    };
  }
  return {
    error: new UnexpectedResponseError(
      `${target} answered with unexpected HTTP status ${status}; nothing usable was received. Check baseUrl ` +
        '(a proxy or redirect may be in the way).',
      status,
      answer.raw,
    ),
    retryable: false,
    mayHaveLanded: false,
  };
}

/** Classifies a transport failure of a request. */
export function classifyFailure(
  kind: RequestKind,
  target: string,
  err: TransportError | UnexpectedResponseError,
  options: { retrySendOnServerError: boolean },
): Classified {
  if (err instanceof UnexpectedResponseError) {
    if (kind !== 'send') return { error: err, retryable: false, mayHaveLanded: false };
    return {
      error: new AmbiguousSendError(
        `${err.message} The message may have been sent; do not repeat it.`,
        'malformed_response',
        { status: err.status, body: err.body },
        err,
      ),
      retryable: false,
      mayHaveLanded: true,
    };
  }
  if (kind === 'send' && err.reason !== 'connect') {
    const reason = err.reason === 'timeout' ? 'timeout' : 'connection';
    const landed = err.status !== undefined && err.status >= 200 && err.status < 300;
    const happened =
      err.reason === 'timeout'
        ? 'no answer arrived within the read timeout'
        : 'the connection dropped before the answer was read';
    return {
      error: new AmbiguousSendError(
        `${target}: ${happened}${landed ? ` after status ${err.status} (the service accepted it)` : ''}; the ` +
          'message may have been sent. Do not repeat it unless a duplicate is acceptable ' +
          '(retrySendOnServerError); check the receipts of the conversation instead.',
        reason,
        { status: err.status },
        err,
      ),
      // A 2xx status line means accepted: repeating it would certainly duplicate the message.
      retryable: options.retrySendOnServerError && !landed,
      mayHaveLanded: true,
    };
  }
  return { error: err, retryable: true, mayHaveLanded: false };
}
