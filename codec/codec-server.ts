/**
 * A codec server: Temporal's remote codec protocol over HTTP, so that the Temporal UI (and
 * `temporal --codec-endpoint`) can show decrypted payloads to an operator who holds the keys.
 * `POST /encode` and `POST /decode` (also under a namespace segment, `/<namespace>/decode`) take
 * and answer `{ "payloads": [{ "metadata": { "<key>": "<base64>" }, "data": "<base64>" }] }`.
 * Browsers may call it from the allowed UI origins (CORS, with the UI's `X-Namespace` and
 * `Authorization` headers). Whoever reaches it can decrypt: it listens on loopback by default.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Default 8888; 0 for any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Origins of the Temporal UI allowed to call it from a browser; default {@link DEFAULT_UI_ORIGINS}. */
  origins?: string[];
}

/** The embedded dev server's UI. */
export const DEFAULT_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];

/** The default port of `amsflow codec-server`. */
export const DEFAULT_CODEC_SERVER_PORT = 8888;

/** Largest request body accepted. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

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

/** Starts the server; rejects with the listen error (e.g. `EADDRINUSE`). */
// eslint-disable-next-line max-lines-per-function -- the HTTP handler (CORS, routes, errors) is a closure over the started server; not yet cut
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const origins = new Set(options.origins?.length ? options.origins : DEFAULT_UI_ORIGINS);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    const cors: Record<string, string> =
      origin && origins.has(origin)
        ? {
            'access-control-allow-origin': origin,
            'access-control-allow-methods': 'POST, OPTIONS',
            'access-control-allow-headers': 'Content-Type, X-Namespace, Authorization',
            'access-control-allow-credentials': 'true',
            'access-control-max-age': '600',
            vary: 'Origin',
          }
        : { vary: 'Origin' };
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { ...cors, 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const operation = /\/(encode|decode)$/.exec((req.url ?? '/').split('?')[0])?.[1];
    if (!operation) return json(404, { error: 'not found: POST /encode or /decode' });
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      return res.end();
    }
    if (req.method !== 'POST') return json(405, { error: 'POST only' });
    const text = await readBody(req);
    if (text === undefined) return json(413, { error: `larger than ${MAX_BODY_BYTES} bytes` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json(400, { error: 'the body is not JSON' });
    }
    const list = PayloadListSchema.safeParse(body);
    if (!list.success) return json(400, { error: 'expected { "payloads": [...] }' });
    const payloads = list.data.payloads.map(fromJson);
    try {
      const done =
        operation === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
      json(200, { payloads: done.map(toJson) });
    } catch (err) {
      json(400, { error: (err as Error).message });
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: err.message }));
    });
  });
  const host = options.host ?? '127.0.0.1';
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
