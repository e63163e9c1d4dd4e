/**
 * A codec server: Temporal's remote codec protocol over HTTP, so that the Temporal UI (and
 * `temporal --codec-endpoint`) can show decrypted payloads to an operator who holds the keys.
 * `POST /decode` (and `/<namespace>/decode`) takes and answers
 * `{ "payloads": [{ "metadata": { "<key>": "<base64>" }, "data": "<base64>" }] }`.
 *
 * Whoever it answers can read every payload, so before anything is decoded a request must:
 * name this server in its Host and come from no page but an allowed UI origin (core/local-request.ts:
 * DNS rebinding, cross-site requests); be exactly one of its paths (codec-routes.ts); be JSON; be
 * for a namespace it serves; carry a credential when one is configured (codec-auth.ts), which it
 * must be to listen beyond loopback. Payloads decode only for the namespace asked for (they are
 * bound to theirs). `/encode` would let a caller mint payloads workers accept: it is off unless
 * `allowEncode`, which needs a credential too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';
import { checkLocalRequest, isLoopbackHost, type LocalRequestPolicy } from '../core/local-request';
import { CodecAuth, type CodecAuthOptions } from './codec-auth';
import { codecRoute, type CodecRoute } from './codec-routes';
import { EncryptionCodecError } from './encryption-codec';
import type { PayloadBinding } from './payload-binding';

/** What the server runs payloads through: the encryption codec, for the namespace asked for. */
export interface BindingCodec {
  encodeFor(payloads: Payload[], binding: PayloadBinding | undefined): Promise<Payload[]>;
  decodeFor(payloads: Payload[], binding: PayloadBinding | undefined): Promise<Payload[]>;
}

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions {
  codec: BindingCodec;
  /** Default 8888; 0 for any free port. */
  port?: number;
  /** Default `127.0.0.1`. Anything beyond loopback needs `auth`. */
  host?: string;
  /** Origins of the Temporal UI allowed to call it from a browser; default {@link DEFAULT_UI_ORIGINS}. */
  origins?: string[];
  /** Host names it is reached by besides its address (a reverse proxy's): see core/local-request.ts. */
  allowedHosts?: string[];
  /** The credential callers must present (required beyond loopback and with `allowEncode`). */
  auth?: CodecAuthOptions;
  /** The namespaces it decodes for; default any (a request then need not name one). */
  namespaces?: string[];
  /** Serve `/encode` (the UI's "start workflow" and "signal" with input); off by default. */
  allowEncode?: boolean;
}

/** The embedded dev server's UI. */
export const DEFAULT_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];

/** The default port of `amsflow codec-server`. */
export const DEFAULT_CODEC_SERVER_PORT = 8888;

/** Largest request body accepted. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The server cannot run as configured (it would decrypt for anyone, or mint payloads for anyone). */
export class CodecServerConfigError extends AmsflowError {
  readonly code = AmsflowErrorCodes.codecServerConfig;
}

/** A listening codec server. */
export interface CodecServer {
  /** `http://<host>:<port>`: the endpoint to give the UI. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The protocol's JSON form of a payload: metadata values and data in base64. */
const JsonPayloadSchema = z.object({
  metadata: z.record(z.string()).optional(),
  data: z.string().optional(),
});
type JsonPayload = z.infer<typeof JsonPayloadSchema>;

/** A request body: `{ "payloads": [...] }`. */
const PayloadListSchema = z.object({ payloads: z.array(JsonPayloadSchema) });

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
  ),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What one server decides with. */
interface Settings {
  codec: BindingCodec;
  policy: LocalRequestPolicy;
  origins: ReadonlySet<string>;
  auth: CodecAuth;
  namespaces: ReadonlySet<string>;
  allowEncode: boolean;
}

type Answer = (status: number, body: unknown, headers?: Record<string, string>) => void;

/** Why the request may not have this route (namespaces served, credential, encode), or undefined. */
async function admission(s: Settings, req: IncomingMessage, route: CodecRoute, answer: Answer) {
  if (s.namespaces.size > 0) {
    if (route.namespace === undefined)
      return answer(400, { error: 'name the namespace: X-Namespace or /<namespace>/decode' });
    if (!s.namespaces.has(route.namespace))
      return answer(403, { error: `namespace "${route.namespace}" is not served here` });
  }
  const denied = await s.auth.refusal(req.headers.authorization, route.namespace);
  if (denied)
    return answer(
      denied.status,
      { error: denied.reason },
      denied.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
    );
  if (route.operation === 'encode' && !s.allowEncode)
    return answer(403, { error: 'encode is off (amsflow codec-server --allow-encode turns it on)' });
  return 'admitted';
}

/** Runs the payloads of an admitted request through the codec. */
async function serve(s: Settings, req: IncomingMessage, route: CodecRoute, answer: Answer) {
  const text = await readBody(req);
  if (text === undefined) return answer(413, { error: `larger than ${MAX_BODY_BYTES} bytes` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(400, { error: 'the body is not JSON' });
  }
  const list = PayloadListSchema.safeParse(body);
  if (!list.success) return answer(400, { error: 'expected { "payloads": [...] }' });
  const payloads = list.data.payloads.map(fromJson);
  const binding = route.namespace === undefined ? {} : { namespace: route.namespace };
  try {
    const done =
      route.operation === 'encode'
        ? await s.codec.encodeFor(payloads, binding)
        : await s.codec.decodeFor(payloads, binding);
    answer(200, { payloads: done.map(toJson) });
  } catch (err) {
    if (!(err instanceof EncryptionCodecError)) throw err;
    answer(400, { error: err.message });
  }
}

async function handle(s: Settings, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const origin = req.headers.origin;
  const cors: Record<string, string> =
    origin && s.origins.has(origin)
      ? {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers': 'Content-Type, X-Namespace, Authorization',
          'access-control-allow-credentials': 'true',
          'access-control-max-age': '600',
        }
      : {};
  const answer: Answer = (status, body, headers = {}) => {
    req.resume();
    res.writeHead(status, {
      ...cors,
      ...headers,
      vary: 'Origin',
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.end(status === 204 ? undefined : JSON.stringify(body));
  };
  const refused = checkLocalRequest(s.policy, req.headers);
  if (refused) return answer(403, { error: refused.reason });
  const route = codecRoute(req.url ?? '/', header(req, 'x-namespace'));
  if ('status' in route) return answer(route.status, { error: route.reason });
  if (req.method === 'OPTIONS') return answer(204, null);
  if (req.method !== 'POST') return answer(405, { error: 'POST only' }, { allow: 'POST, OPTIONS' });
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return answer(415, { error: 'Content-Type must be application/json' });
  if ((await admission(s, req, route, answer)) !== 'admitted') return;
  await serve(s, req, route, answer);
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The server's settings; throws {@link CodecServerConfigError} for a setup that would serve anyone. */
function settingsOf(options: CodecServerOptions, host: string): Settings {
  const auth = new CodecAuth(options.auth);
  if (!auth.required && !isLoopbackHost(host))
    throw new CodecServerConfigError(
      `The codec server refuses to listen on ${host} without authentication: whoever reaches it could ` +
        'read every payload. Give it a token (--token-file, AMSFLOW_CODEC_TOKEN) or an OIDC issuer (--oidc-issuer), or listen on 127.0.0.1.',
    );
  if (options.allowEncode && !auth.required)
    throw new CodecServerConfigError(
      '--allow-encode needs authentication (--token-file, AMSFLOW_CODEC_TOKEN or --oidc-issuer): ' +
        'encode makes payloads every worker accepts.',
    );
  const origins = options.origins?.length ? options.origins : DEFAULT_UI_ORIGINS;
  return {
    codec: options.codec,
    policy: { listenHost: host, allowedHosts: options.allowedHosts ?? [], allowedOrigins: origins },
    origins: new Set(origins),
    auth,
    namespaces: new Set(options.namespaces ?? []),
    allowEncode: options.allowEncode === true,
  };
}

/** Starts the server; rejects with {@link CodecServerConfigError} or the listen error (`EADDRINUSE`). */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const host = options.host ?? '127.0.0.1';
  const settings = settingsOf(options, host);
  const server = createServer((req, res) => {
    handle(settings, req, res).catch(() => {
      // A bug must not take the server down, nor tell a caller more than that it happened.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal error' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_CODEC_SERVER_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
