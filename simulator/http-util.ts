import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { ApiError, ErrorCode, badRequest } from './errors';

/** Renders the spec's error object (section 7, WIRE-CONVENTIONS). */
export function errorBody(err: ApiError): { error: Record<string, unknown> } {
  return {
    error: {
      code: err.code,
      message: err.message,
      type: err.status === 401 ? 'OAuthException' : 'AmsSimulatorException',
      fbtrace_id: randomBytes(8).toString('hex'),
    },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, errorBody(err), err.headers);
}

/** Turns anything thrown into an ApiError; unexpected errors become 500 code 2. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, ErrorCode.unknown, `internal simulator error: ${message}`);
}

/**
 * Reads the whole body. An oversized body is drained (not kept) before the 413, so the client
 * always gets an answer instead of a reset connection.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = Number.isFinite(declared) && declared > maxBytes;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) tooLarge = true;
    if (!tooLarge) chunks.push(buf);
  }
  if (tooLarge) {
    throw new ApiError(413, ErrorCode.payloadTooLarge, `request body larger than ${maxBytes} bytes`);
  }
  return Buffer.concat(chunks);
}

export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** Reads a JSON body: 415 unless the content type is JSON, 400 code 100 unless it parses. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = mediaTypeOf(req);
  if (type !== 'application/json' && !type.endsWith('+json')) {
    // Drain so that keep-alive connections stay usable.
    await readBody(req, maxBytes).catch(() => undefined);
    throw new ApiError(415, ErrorCode.unsupportedMediaType, 'Content-Type must be application/json');
  }
  const body = await readBody(req, maxBytes);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new ApiError(400, ErrorCode.invalidParameter, 'request body is not valid JSON');
  }
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses `value` with `schema`, or throws 400 naming the first invalid member. */
export function parseOrBadRequest<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(
      ErrorCode.invalidParameter,
      `invalid ${issue.path.join('.') || 'body'}: ${issue.message}`,
    );
  }
  return parsed.data as z.infer<T>;
}
