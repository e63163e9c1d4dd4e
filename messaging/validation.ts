/**
 * Local checks made before a request leaves (the `validate` option, spec 8 "Client recipient
 * rules" 3). Every failure is a {@link ValidationError}; nothing is sent.
 *
 * Length caps are the spec's; MIME types and size caps, which the spec does not show, follow
 * WIRE-CONVENTIONS (WhatsApp's published caps, decimal bytes) and can be overridden per kind.
 */
import { ValidationError } from './errors';
import { CAPTIONED_KINDS, INBOUND_TYPES, MEDIA_KINDS, type MediaKind } from './schemas';
import { MEDIA_RULES_TABLE } from '../core/media-rules';

/** Text body cap (spec 4.1). */
export const MAX_TEXT_CHARS = 4096;
/** Caption cap for image, video and document (spec 4.1). */
export const MAX_CAPTION_CHARS = 1024;
/** Largest long-poll wait in seconds (spec 4.2). */
export const MAX_POLL_TIMEOUT_S = 25;

/** What a media kind accepts. */
export interface MediaRule {
  /** Accepted MIME types (lower case, without parameters). */
  mimeTypes: readonly string[];
  /** Size cap in bytes (for stickers: animated stickers). */
  maxBytes: number;
  /** Size cap of a static sticker; only used for `sticker`. */
  maxBytesStatic?: number;
}
export type MediaRules = Record<MediaKind, MediaRule>;

/** WIRE-CONVENTIONS "Local validation". */
export const DEFAULT_MEDIA_RULES: Readonly<MediaRules> = MEDIA_RULES_TABLE;

/** Defaults overlaid with per-kind overrides. */
export function resolveMediaRules(
  overrides: Partial<Record<MediaKind, Partial<MediaRule>>> = {},
): MediaRules {
  const rules = {} as MediaRules;
  for (const kind of MEDIA_KINDS) {
    const merged = { ...DEFAULT_MEDIA_RULES[kind], ...overrides[kind] };
    rules[kind] = { ...merged, mimeTypes: merged.mimeTypes.map(normalizeMimeType) };
  }
  return rules;
}

/** `Image/PNG; charset=x` -> `image/png`. */
export function normalizeMimeType(mimeType: string): string {
  return mimeType.split(';')[0].trim().toLowerCase();
}

/** Length as the spec counts characters: Unicode code points, so an emoji is one character. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** Argument checks that do not depend on `validate`: a programming error, not a content rule. */
export function requireNonEmptyString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ValidationError(`${what} must be a non-empty string; nothing was sent.`);
  }
  return value;
}

/**
 * A recipient must have the `user:<id>` form (spec 2.1). Only the form is checked; the identifier
 * is otherwise opaque and never interpreted. It is not echoed in the message (never displayed).
 */
export function checkRecipient(to: unknown): void {
  if (typeof to !== 'string' || !/^user:\S+$/.test(to)) {
    throw new ValidationError(
      'The recipient is malformed: it must be a participant identifier of the form user:<id> (not a ' +
        'phone number and not an agent: identifier), taken unchanged from an inbound message or a send ' +
        'result. Nothing was sent.',
    );
  }
}

export function checkTextBody(body: unknown): void {
  if (typeof body !== 'string') throw new ValidationError('Text body must be a string; nothing was sent.');
  const n = characterCount(body);
  if (n > MAX_TEXT_CHARS) {
    throw new ValidationError(
      `Text body is ${n} characters; the service accepts at most ${MAX_TEXT_CHARS}. Split it into several ` +
        'messages. Nothing was sent.',
    );
  }
}

export function checkCaption(kind: string, caption: unknown): void {
  if (caption === undefined) return;
  if (!(CAPTIONED_KINDS as readonly string[]).includes(kind)) {
    throw new ValidationError(`A ${kind} message takes no caption; remove it. Nothing was sent.`);
  }
  if (typeof caption !== 'string') throw new ValidationError('Caption must be a string; nothing was sent.');
  const n = characterCount(caption);
  if (n > MAX_CAPTION_CHARS) {
    throw new ValidationError(
      `The ${kind} caption is ${n} characters; the service accepts at most ${MAX_CAPTION_CHARS}. Shorten ` +
        'it or send the rest as text. Nothing was sent.',
    );
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Content checks of a send body (with `validate` on). Every known payload object present is
 * checked, not only the one being sent: the service validates them all (spec 4.1). Unknown types
 * pass through unchecked apart from carrying their payload object.
 */
export function checkOutgoing(message: Record<string, unknown>): void {
  const type = message.type;
  if (typeof type !== 'string' || type.length === 0) {
    throw new ValidationError('A message needs a `type` naming its payload object; nothing was sent.');
  }
  if (type === 'reaction') {
    throw new ValidationError(
      'Reactions are receive-only; the service rejects reaction sends. Nothing was sent.',
    );
  }
  if (!isObject(message[type])) {
    throw new ValidationError(
      `A ${type} message needs a \`${type}\` object (the payload named after its type); nothing was sent.`,
    );
  }
  if (message.context !== undefined) {
    if (
      !isObject(message.context) ||
      typeof message.context.message_id !== 'string' ||
      !message.context.message_id
    ) {
      throw new ValidationError('The quoted message id must be a non-empty string; nothing was sent.');
    }
  }
  for (const known of INBOUND_TYPES) {
    const payload = message[known];
    if (payload === undefined || known === 'reaction') continue;
    if (!isObject(payload)) {
      throw new ValidationError(`The \`${known}\` member must be an object; nothing was sent.`);
    }
    if (known === 'text') {
      checkTextBody(payload.body);
      continue;
    }
    if (typeof payload.id !== 'string' || payload.id.length === 0) {
      throw new ValidationError(
        `A ${known} payload needs the media id returned by uploadMedia; nothing was sent.`,
      );
    }
    checkCaption(known, payload.caption);
    if (payload.filename !== undefined && known !== 'document') {
      throw new ValidationError(`Only documents take a filename, not ${known}; nothing was sent.`);
    }
  }
}

/** True when a WebP file is animated (VP8X header with the animation flag). */
export function isAnimatedWebp(data: Uint8Array): boolean {
  if (data.length < 21) return false;
  const ascii = (from: number, to: number): string => String.fromCharCode(...data.subarray(from, to));
  return (
    ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP' && ascii(12, 16) === 'VP8X' && (data[20] & 0x02) !== 0
  );
}

/** The media kinds that accept `mimeType`. */
export function kindsForMimeType(mimeType: string, rules: MediaRules): MediaKind[] {
  const mime = normalizeMimeType(mimeType);
  return MEDIA_KINDS.filter((kind) => rules[kind].mimeTypes.includes(mime));
}

function formatBytes(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000} MB` : n >= 1000 ? `${n / 1000} KB` : `${n} bytes`;
}

/**
 * Upload checks: the MIME type must be accepted by some media kind, and the size within that kind's
 * cap (stickers: static or animated cap, read from the WebP header). Returns the matching kinds.
 */
export function checkUpload(data: Uint8Array, mimeType: string, rules: MediaRules): MediaKind[] {
  const kinds = kindsForMimeType(mimeType, rules);
  if (kinds.length === 0) {
    const accepted = MEDIA_KINDS.map((k) => `${k}: ${rules[k].mimeTypes.join(', ')}`).join('; ');
    throw new ValidationError(
      `MIME type ${normalizeMimeType(mimeType)} is not accepted for media (${accepted}). Convert the file ` +
        'or pass the right mimeType. Nothing was uploaded.',
    );
  }
  const cap = Math.max(
    ...kinds.map((kind) => {
      const rule = rules[kind];
      if (kind === 'sticker' && rule.maxBytesStatic !== undefined && !isAnimatedWebp(data))
        return rule.maxBytesStatic;
      return rule.maxBytes;
    }),
  );
  if (data.byteLength > cap) {
    throw new ValidationError(
      `The file is ${formatBytes(data.byteLength)}; ${kinds.join('/')} media may be at most ` +
        `${formatBytes(cap)}. Compress it or send it as a document. Nothing was uploaded.`,
    );
  }
  return kinds;
}

/** A media id uploaded by this client with a MIME type the send kind does not accept. */
export function checkMediaKind(
  kind: MediaKind,
  uploadedMimeType: string | undefined,
  rules: MediaRules,
): void {
  if (uploadedMimeType === undefined) return;
  const mime = normalizeMimeType(uploadedMimeType);
  if (!rules[kind].mimeTypes.includes(mime)) {
    throw new ValidationError(
      `This media was uploaded as ${mime}, which a ${kind} message does not accept ` +
        `(${rules[kind].mimeTypes.join(', ')}). Send it as another kind or upload a converted file. ` +
        'Nothing was sent.',
    );
  }
}

/** GET /updates parameters. */
export function checkUpdatesParams(params: {
  offset?: number;
  limit?: number;
  timeout?: number;
  maxBytes?: number;
}): void {
  const { offset, limit, timeout, maxBytes } = params;
  if (offset !== undefined && (!Number.isSafeInteger(offset) || offset < 0)) {
    throw new ValidationError(
      `offset must be a non-negative integer (next_offset of the last page), got ${offset}.`,
    );
  }
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new ValidationError(`limit must be a positive integer, got ${limit}.`);
  }
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 1)) {
    throw new ValidationError(`maxBytes must be a positive integer, got ${maxBytes}.`);
  }
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 0 || timeout > MAX_POLL_TIMEOUT_S)) {
    throw new ValidationError(
      `timeout must be a whole number of seconds from 0 to ${MAX_POLL_TIMEOUT_S}, got ${timeout}.`,
    );
  }
}
