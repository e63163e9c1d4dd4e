/**
 * The one error type of the simulator's HTTP layer. Every rejection the simulator gives is an
 * `ApiError`, rendered as the spec's error object `{ error: { code, message, ... } }` (section 7
 * and WIRE-CONVENTIONS), so that no failure path can answer without a numeric code.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Error codes used on the wire. Section 7 gives most; the rest are readings (see README). */
export const ErrorCode = {
  /** Invalid parameter: lengths, missing payload object, reaction sends, bad query values. */
  invalidParameter: 100,
  /** Unknown or unexpected server error; also `user:<id>` naming a non-human account. */
  unknown: 2,
  /** Bad or missing access token (WIRE-CONVENTIONS). */
  badToken: 190,
  /** Parameter value is not valid: recipient, media id, quoted id, unknown message id. */
  invalidValue: 131009,
  /** Recipient is not the agent's creator. */
  recipientNotAllowed: 131005,
  /** Message not accepted for delivery (fault injection only). */
  notAccepted: 131016,
  /** Rate limit hit. */
  rateLimited: 130429,
  /** Poll replaced by a newer poll; the spec does not show a code, this mirrors HTTP 409. */
  pollReplaced: 409,
  /** Resource (path, media file) not found. */
  notFound: 404,
  /** Method not allowed on an existing path. */
  methodNotAllowed: 405,
  /** Request body too large. */
  payloadTooLarge: 413,
  /** Unsupported content type. */
  unsupportedMediaType: 415,
  /** Control API called from a non-loopback address. */
  forbidden: 403,
} as const;

export const badRequest = (code: number, message: string): ApiError => new ApiError(400, code, message);
