/**
 * Errors of the messaging client. Every class has a stable string `code` (only strings survive the
 * trip from an activity to a workflow) and a message saying what went wrong and what to do.
 *
 * Hierarchy:
 * - MessagingError
 *   - ValidationError        a local check failed; nothing was sent
 *   - ApiError               the service answered with an error status
 *     - AuthError            401 / code 190: the token is bad or missing
 *     - RateLimitError       429 / 130429: not sent; retry after `retryAfterMs`
 *     - NotAcceptedError     503 / 131016: not sent; retry later
 *     - PollReplacedError    409: a newer poll replaced this one
 *   - AmbiguousSendError     a send whose outcome is unknown: it may have been sent
 *   - UnexpectedResponseError a non-send answer whose body or status makes no sense
 *   - TransportError         connection failure or read timeout on a repeatable request
 *   - RequestAbortedError    the caller's AbortSignal fired
 *   - ClientClosedError      the client was closed
 *
 * No error carries the token: request headers are never attached, response bodies are redacted
 * before they are stored, and `cause` is kept non-enumerable. No error's message quotes a body,
 * and the raw body an UnexpectedResponseError keeps is not enumerable (it may hold messages).
 */

/** Stable error codes, one per class. */
export const ErrorCodes = {
  validation: 'AMS_VALIDATION',
  api: 'AMS_API_ERROR',
  auth: 'AMS_AUTH',
  rateLimit: 'AMS_RATE_LIMITED',
  notAccepted: 'AMS_NOT_ACCEPTED',
  pollReplaced: 'AMS_POLL_REPLACED',
  ambiguousSend: 'AMS_AMBIGUOUS_SEND',
  unexpectedResponse: 'AMS_UNEXPECTED_RESPONSE',
  transport: 'AMS_TRANSPORT',
  aborted: 'AMS_ABORTED',
  closed: 'AMS_CLIENT_CLOSED',
} as const;
export type MessagingErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Base class of every error thrown by the messaging client. */
export abstract class MessagingError extends Error {
  abstract readonly code: MessagingErrorCode;

  constructor(message: string, cause?: unknown) {
    super(message);
    this.name = new.target.name;
    // Non-enumerable so that JSON.stringify and structured logging never walk into it.
    if (cause !== undefined) {
      Object.defineProperty(this, 'cause', {
        value: cause,
        enumerable: false,
        writable: true,
        configurable: true,
      });
    }
  }
}

/** A local check failed before anything left the process. Fix the call; nothing was sent. */
export class ValidationError extends MessagingError {
  readonly code = ErrorCodes.validation;
}

/** Shape shared by errors built from an HTTP answer. */
export interface HttpAnswer {
  /** HTTP status. */
  status: number;
  /** `error.code` of the body, when the body is an error object. */
  errorCode?: number;
  /** Parsed JSON body, or the raw text when it is not JSON (token redacted). */
  body: unknown;
}

/** The service answered with an error status. `errorCode` is the body's `error.code`, if any. */
export class ApiError extends MessagingError {
  readonly code: MessagingErrorCode = ErrorCodes.api;
  readonly status: number;
  readonly errorCode: number | undefined;
  readonly body: unknown;

  constructor(message: string, answer: HttpAnswer) {
    super(message);
    this.status = answer.status;
    this.errorCode = answer.errorCode;
    this.body = answer.body;
  }
}

/** The token is bad, missing or revoked (401, `error.code` 190). Check the token; retrying will not help. */
export class AuthError extends ApiError {
  override readonly code = ErrorCodes.auth;
}

/** 429 / 130429: nothing was sent. Wait `retryAfterMs` (from Retry-After) or back off, then retry. */
export class RateLimitError extends ApiError {
  override readonly code = ErrorCodes.rateLimit;
  /** The wait the service asked for (Retry-After), or undefined when it gave none. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, answer: HttpAnswer, retryAfterMs: number | undefined) {
    super(message, answer);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 503 / 131016: the message was not accepted for delivery; nothing was sent. Retry later. */
export class NotAcceptedError extends ApiError {
  override readonly code = ErrorCodes.notAccepted;
}

/** 409: another poll for the same agent replaced this one. Run one poll loop per agent. */
export class PollReplacedError extends ApiError {
  override readonly code = ErrorCodes.pollReplaced;
}

/** Why a send's outcome is unknown. */
export type AmbiguousSendReason = 'server_error' | 'connection' | 'timeout' | 'malformed_response';

/**
 * A send whose outcome is unknown: the message may have been delivered. Do not repeat it unless a
 * duplicate is acceptable; look for it in the conversation (receipts) instead.
 */
export class AmbiguousSendError extends MessagingError {
  readonly code = ErrorCodes.ambiguousSend;
  readonly reason: AmbiguousSendReason;
  /** HTTP status, when one arrived (a 2xx here means the service accepted the message). */
  readonly status: number | undefined;
  /** `error.code` of the body, when the body is an error object. */
  readonly errorCode: number | undefined;
  /** Parsed or raw body, when one arrived (token redacted). */
  readonly body: unknown;

  constructor(message: string, reason: AmbiguousSendReason, answer?: Partial<HttpAnswer>, cause?: unknown) {
    super(message, cause);
    this.reason = reason;
    this.status = answer?.status;
    this.errorCode = answer?.errorCode;
    this.body = answer?.body;
  }
}

/** A (non-send) answer whose status or body the client cannot use; `body` is the raw text. */
export class UnexpectedResponseError extends MessagingError {
  readonly code = ErrorCodes.unexpectedResponse;
  readonly status: number;
  /**
   * The raw body as received (token redacted). Not enumerable: an update page holds the human's
   * messages, and a logger that walks the error (the SDK's "Activity failed" WARN line) must not
   * print them.
   */
  declare readonly body: string;
  /** Set when the body was over the client's size cap (nothing of it is kept): that cap, in bytes. */
  readonly overLimitBytes: number | undefined;

  constructor(message: string, status: number, body: string, cause?: unknown, overLimitBytes?: number) {
    super(message, cause);
    this.status = status;
    Object.defineProperty(this, 'body', {
      value: body,
      enumerable: false,
      writable: false,
      configurable: true,
    });
    this.overLimitBytes = overLimitBytes;
  }
}

/**
 * Why a request failed below HTTP: `connect` (no connection was made, nothing reached the service),
 * `connection` (the connection dropped), `timeout` (no answer within the read timeout).
 */
export type TransportFailure = 'connect' | 'connection' | 'timeout';

/** The request failed below HTTP. Check connectivity and `baseUrl`; repeatable requests were retried. */
export class TransportError extends MessagingError {
  readonly code = ErrorCodes.transport;
  readonly reason: TransportFailure;
  /** HTTP status, when the failure came after the status line. */
  readonly status: number | undefined;

  constructor(message: string, reason: TransportFailure, status: number | undefined, cause?: unknown) {
    super(message, cause);
    this.reason = reason;
    this.status = status;
  }
}

/**
 * The caller's AbortSignal fired. `mayHaveBeenSent` is true when a request of the call had already
 * left (it may have taken effect): for a send, treat it like an {@link AmbiguousSendError}.
 */
export class RequestAbortedError extends MessagingError {
  readonly code = ErrorCodes.aborted;
  readonly mayHaveBeenSent: boolean;

  constructor(message: string, mayHaveBeenSent: boolean, cause?: unknown) {
    super(message, cause);
    this.mayHaveBeenSent = mayHaveBeenSent;
  }
}

/** The client was closed; create a new one to continue. */
export class ClientClosedError extends MessagingError {
  readonly code = ErrorCodes.closed;
}

/** True for any error thrown by the messaging client. */
export function isMessagingError(err: unknown): err is MessagingError {
  return err instanceof MessagingError;
}
