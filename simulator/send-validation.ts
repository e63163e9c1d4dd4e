import { ApiError, ErrorCode, badRequest } from './errors';
import { isPlainObject } from './http-util';
import {
  CAPTION_MAX_CHARS,
  CAPTION_TYPES,
  FILENAME_TYPES,
  MEDIA_TYPES,
  OUTBOUND_TYPES,
  TEXT_MAX_CHARS,
  WIRE,
  type OutboundType,
} from './wire';

/** What a send's validation needs to know about the platform. */
export interface SendContext {
  creator: string;
  /** True when `id` is the id of a configured agent, i.e. not a human account. */
  isAgentId(id: string): boolean;
  /** True when the agent may send this media id now (its own or received, not expired). */
  mediaUsable(id: string): boolean;
  /** True when the platform ever issued this message id, in any agent's chat. */
  messageIssued(id: string): boolean;
}

export interface ValidSend {
  to: string;
  type: OutboundType;
  quotedId?: string;
  mediaId?: string;
}

/** Characters are counted as Unicode code points. */
const charCount = (s: string): number => [...s].length;

const RECIPIENT_RE = /^user:\S+$/;

/**
 * What counts as "the first URL in the body" for `preview_url`: the first token that starts with
 * a scheme followed by `://` (any scheme) or with `www.`. A bare domain (`example.com`) is not a URL.
 */
const URL_RE = /(?:\b[a-z][a-z0-9+.-]*:\/\/|\bwww\.)\S*/i;

const invalid = (message: string): ApiError => badRequest(ErrorCode.invalidParameter, message);

function checkPayloadObject(type: OutboundType, value: unknown, declared: boolean): void {
  if (!isPlainObject(value)) throw invalid(`${type} must be an object`);
  if (type === 'text') {
    const body = value.body;
    if (body === undefined && declared) throw invalid('text.body is required');
    if (body !== undefined && typeof body !== 'string') throw invalid('text.body must be a string');
    if (typeof body === 'string' && charCount(body) > TEXT_MAX_CHARS) {
      throw invalid(`text.body is longer than ${TEXT_MAX_CHARS} characters`);
    }
    if (value.preview_url !== undefined && typeof value.preview_url !== 'boolean') {
      throw invalid('text.preview_url must be a boolean');
    }
    return;
  }
  const caption = value.caption;
  if (caption !== undefined) {
    if (!CAPTION_TYPES.includes(type)) throw invalid(`${type} does not take a caption`);
    if (typeof caption !== 'string') throw invalid(`${type}.caption must be a string`);
    if (charCount(caption) > CAPTION_MAX_CHARS) {
      throw invalid(`${type}.caption is longer than ${CAPTION_MAX_CHARS} characters`);
    }
  }
  const filename = value.filename;
  if (filename !== undefined) {
    if (!FILENAME_TYPES.includes(type)) throw invalid(`${type} does not take a filename`);
    if (typeof filename !== 'string') throw invalid(`${type}.filename must be a string`);
  }
  const id = value[WIRE.mediaId];
  if (id !== undefined && typeof id !== 'string') {
    throw badRequest(ErrorCode.invalidValue, `${type}.${WIRE.mediaId} must be a string`);
  }
}

function checkPreview(text: Record<string, unknown>): void {
  if (text.preview_url !== true) return;
  const first = URL_RE.exec(text.body as string)?.[0];
  if (first !== undefined && !/^https?:\/\//i.test(first)) {
    throw invalid('with preview_url the first URL in the body must begin with http:// or https://');
  }
}

/**
 * Validates a POST /messages body against section 4.1 and the error table of section 7.
 * Throws the ApiError to answer; returns the accepted essentials otherwise.
 */
export function validateSend(body: unknown, ctx: SendContext): ValidSend {
  if (!isPlainObject(body)) throw invalid('request body must be a JSON object');
  const type = body.type;
  if (typeof type !== 'string' || type.length === 0) throw invalid('type is required');
  if (type === 'reaction') throw invalid('reaction messages cannot be sent');
  if (!(OUTBOUND_TYPES as readonly string[]).includes(type)) throw invalid(`unknown message type '${type}'`);
  const declared = type as OutboundType;
  if (!isPlainObject(body[declared])) throw invalid(`payload object '${declared}' is missing`);

  // Every payload object present is checked, not only the declared one (section 4.1).
  for (const t of OUTBOUND_TYPES) {
    if (body[t] !== undefined) checkPayloadObject(t, body[t], t === declared);
  }
  if (declared === 'text') checkPreview(body.text as Record<string, unknown>);

  const to = body.to;
  if (typeof to !== 'string' || !RECIPIENT_RE.test(to)) {
    throw badRequest(ErrorCode.invalidValue, "'to' must be user:<id> of the agent's creator");
  }
  if (ctx.isAgentId(to.slice('user:'.length))) {
    // Section 7: `user:<id>` naming a non-human account is a 500 with code 2; nothing is sent.
    throw new ApiError(500, ErrorCode.unknown, 'recipient is not a human account');
  }
  if (to !== ctx.creator) {
    throw new ApiError(403, ErrorCode.recipientNotAllowed, "recipient is not the agent's creator");
  }

  let quotedId: string | undefined;
  const context = body[WIRE.quote];
  if (context !== undefined) {
    if (!isPlainObject(context)) throw invalid(`${WIRE.quote} must be an object`);
    const id = context[WIRE.quoteId];
    if (typeof id !== 'string' || id.length === 0) throw invalid(`${WIRE.quote}.${WIRE.quoteId} is required`);
    if (!ctx.messageIssued(id)) {
      throw badRequest(ErrorCode.invalidValue, 'quoted message id was never issued by the platform');
    }
    quotedId = id;
  }

  let mediaId: string | undefined;
  if ((MEDIA_TYPES as readonly string[]).includes(declared)) {
    const id = body[declared][WIRE.mediaId];
    if (typeof id !== 'string' || id.length === 0) {
      throw badRequest(ErrorCode.invalidValue, `${declared}.${WIRE.mediaId} is missing`);
    }
    if (!ctx.mediaUsable(id)) throw badRequest(ErrorCode.invalidValue, 'media id is unknown or expired');
    mediaId = id;
  }
  return { to, type: declared, quotedId, mediaId };
}
