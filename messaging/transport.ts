/**
 * One HTTP exchange over undici: dispatch, read timeout, whole-body read, and the mapping of
 * network failures to {@link TransportError}. No retries and no interpretation of statuses here.
 */
import { type Dispatcher, type FormData, request } from 'undici';
import { TransportError, type TransportFailure, UnexpectedResponseError } from './errors';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
  /**
   * Read timeout, ms: the longest silence allowed while waiting for the status line and between
   * body chunks. Enforced here with a timer (so it holds for any dispatcher) and also handed to
   * undici as headersTimeout/bodyTimeout.
   */
  readTimeoutMs: number;
  /** Aborts the exchange; the promise then rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Largest body accepted, bytes. */
  maxResponseBytes: number;
  /** Added to a connect failure's message (e.g. "is baseUrl set?"). */
  connectHint?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested)) codes.push(...nested.flatMap(errorCodes));
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** Which kind of network failure `err` is. Connect failures happen before any byte is sent. */
export function classifyNetworkError(err: unknown): TransportFailure {
  const codes = errorCodes(err);
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return 'timeout';
  if (codes.some((c) => CONNECT_CODES.has(c))) return 'connect';
  return 'connection';
}

/** Performs one request and reads the whole answer. */
export async function httpExchange(dispatcher: Dispatcher, req: HttpRequest): Promise<HttpResponse> {
  const target = `${req.method} ${req.url.pathname}`;
  const controller = new AbortController();
  let timedOut = false;
  let status: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const armTimer = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('read timeout'));
    }, req.readTimeoutMs);
  };
  const onOuterAbort = (): void => controller.abort(req.signal?.reason);
  if (req.signal?.aborted) throw req.signal.reason;
  req.signal?.addEventListener('abort', onOuterAbort, { once: true });
  armTimer();
  try {
    const res = await request(req.url, {
      dispatcher,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
      headersTimeout: req.readTimeoutMs,
      bodyTimeout: req.readTimeoutMs,
    });
    status = res.statusCode;
    armTimer();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buf.length;
      if (size > req.maxResponseBytes) {
        res.body.destroy();
        throw new UnexpectedResponseError(
          `${target} answered ${status} with a body over ${req.maxResponseBytes} bytes; the client stopped ` +
            'reading. Raise the size limit if this is expected.',
          status,
          '',
          undefined,
          req.maxResponseBytes,
        );
      }
      chunks.push(buf);
      armTimer();
    }
    return { status, headers: res.headers, body: Buffer.concat(chunks) };
  } catch (err) {
    if (err instanceof UnexpectedResponseError) throw err;
    if (req.signal?.aborted) throw req.signal.reason;
    const reason: TransportFailure = timedOut ? 'timeout' : classifyNetworkError(err);
    throw new TransportError(describe(target, reason, status, req), reason, status, err);
  } finally {
    if (timer) clearTimeout(timer);
    req.signal?.removeEventListener('abort', onOuterAbort);
  }
}

function describe(
  target: string,
  reason: TransportFailure,
  status: number | undefined,
  req: HttpRequest,
): string {
  switch (reason) {
    case 'connect':
      return (
        `${target}: could not connect to ${req.url.origin}; nothing was sent. Check the network and ` +
        `baseUrl.${req.connectHint ? ` ${req.connectHint}` : ''}`
      );
    case 'timeout':
      return (
        `${target}: no answer within the read timeout of ${req.readTimeoutMs} ms` +
        `${status === undefined ? '' : ` (status ${status} arrived, the body did not)`}. Raise timeoutMs if the ` +
        'service is slow.'
      );
    default:
      return (
        `${target}: the connection dropped ${status === undefined ? 'before an answer' : `while reading a ${status} answer`}.` +
        ' Check the network or proxy.'
      );
  }
}
