/**
 * A reverse proxy that applies amsflow's check of local requests (core/local-request.ts) in front
 * of a local web server that has none of its own: the embedded Temporal dev server's web UI. The
 * UI shows every workflow's history and can signal, cancel and terminate workflows; without a Host
 * check a page on a DNS name rebound to 127.0.0.1 reads and drives it as if same-origin (its CSRF
 * cookie included). The proxy listens where the UI used to (`127.0.0.1:8233`) and forwards only
 * requests that name this machine in their Host and come from no other site's page; the UI itself
 * listens on a private loopback address (worker/private-loopback.ts) that only the proxy uses.
 *
 * The request goes on as it came, its Host included, so that what the UI writes into its answers
 * (redirects, cookies) names the proxy, not the private address.
 */
import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkLocalRequest } from '../core/local-request';

/** Options of {@link startCheckedProxy}. */
export interface CheckedProxyOptions {
  /** The interface the proxy listens on (loopback: the check's Host rules follow from it). */
  host: string;
  /** Its port; 0 for any free one. */
  port: number;
  /** The server behind it. */
  upstream: { host: string; port: number };
  /** What is behind it, for answers that are the proxy's own ("the Temporal UI"). */
  what: string;
}

/** A listening proxy. */
export interface CheckedProxy {
  /** `http://<host>:<port>`: the address to open. */
  url: string;
  port: number;
  /** Stops listening and ends every connection, open ones included. */
  close(): Promise<void>;
}

/** Headers of one hop only (RFC 9110 7.6.1): each side of the proxy has its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !listed.includes(name)),
  );
}

function plain(status: number, text: string): [number, Record<string, string>, string] {
  return [
    status,
    {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    `${text}\n`,
  ];
}

/** Answers with the proxy's own text. */
function reply(res: ServerResponse, [status, headers, body]: ReturnType<typeof plain>): void {
  res.writeHead(status, headers);
  res.end(body);
}

/** Sends one checked request on to the upstream, and its answer back. */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  options: CheckedProxyOptions,
  agent: Agent,
): void {
  const upstream = request(
    {
      agent,
      host: options.upstream.host,
      port: options.upstream.port,
      method: req.method,
      path: req.url,
      headers: endToEnd(req.headers),
    },
    (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEnd(upstreamRes.headers));
      upstreamRes.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (res.headersSent) res.destroy();
    else reply(res, plain(502, `${options.what} is not answering (${err.message}); is it still starting?`));
  });
  // A browser that gives up ends the upstream request too.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/** Starts the proxy; rejects with the listen error (`EADDRINUSE` when the port is taken). */
export async function startCheckedProxy(options: CheckedProxyOptions): Promise<CheckedProxy> {
  const policy = { listenHost: options.host };
  // Keep-alive to the upstream: a page of the UI loads dozens of files.
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((req, res) => {
    const refused = checkLocalRequest(policy, req.headers);
    if (refused)
      return reply(res, plain(403, `amsflow refused this request to ${options.what}: ${refused.reason}`));
    // Origin-form only: an absolute URL would make this a proxy to anywhere.
    if (!req.url?.startsWith('/')) return reply(res, plain(400, 'a path is expected'));
    forward(req, res, options, agent);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Like the server it fronts (worker/dev-server.ts), it does not keep the process alive on its
  // own: its owner closes it. Connections in progress still do.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      })),
  };
}
