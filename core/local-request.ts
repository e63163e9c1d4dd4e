/**
 * The one check every local HTTP server of amsflow applies before anything else (the codec server,
 * the worker's metrics and health endpoint, the simulator's control API and web chat): is this
 * request meant for this server, and does it come from a page allowed to send it?
 *
 * - **Host** (DNS rebinding): a page on `http://evil.example:8888` whose name the attacker points
 *   at 127.0.0.1 talks to a loopback server as if same-origin, but its requests carry
 *   `Host: evil.example:8888`. Rebinding needs a DNS name, so the Host must be the address the
 *   server listens on (any IP address when it listens on every interface), `localhost` when it
 *   listens on loopback, or a name the operator configured. Its port is not checked: the attacker
 *   controls only the name.
 * - **Origin** (cross-site requests): a browser names the page's origin on every cross-origin
 *   request and on every POST. It must be the server's own origin (the same host as `Host`) or
 *   one the operator allowed; `Origin: null` (sandboxed frames, files) never is.
 * - **Sec-Fetch-Site** without an Origin: a request a page made without CORS (an `<img>` or
 *   `<script>` of another site) is refused too, so that no other site embeds what a server serves.
 * Requests without these headers (curl, Prometheus, the SDKs) pass; they are not browsers.
 *
 * Pure and dependency-free (core/): each server maps a refusal to its own 403 answer.
 */

/** What a server accepts, beyond its own address. */
export interface LocalRequestPolicy {
  /** The address the server listens on (`127.0.0.1`, `0.0.0.0`, `::`, `localhost`, ...). */
  listenHost: string;
  /**
   * Host names it is also reached by (a reverse proxy's, a container's service name): exact, or
   * `.example.com` for every name under example.com. Compared without case.
   */
  allowedHosts?: readonly string[];
  /** Browser origins allowed to call it (`https://ui.example:8233`), exactly as browsers send them. */
  allowedOrigins?: readonly string[];
}

/** The request headers the check reads (Node's `IncomingHttpHeaders` fits). */
export interface LocalRequestHeaders {
  host?: string;
  origin?: string;
  'sec-fetch-site'?: string;
}

/** Why a request is refused: `host` (not this server's name) or `origin` (a page not allowed). */
export type LocalRequestRefusal = { what: 'host' | 'origin'; reason: string };

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;
const NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/** `host[:port]` of a Host header, lowercased; undefined when it is not one. */
export function parseHostHeader(value: string): { hostname: string; port?: number } | undefined {
  const m = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const hostname = m[1];
  if (!IPV4.test(hostname) && !IPV6.test(hostname) && !NAME.test(hostname)) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { hostname, port };
}

/** Whether `hostname` (as in a Host header: IPv6 in brackets) is an IP address, not a name. */
export function isIpLiteral(hostname: string): boolean {
  return IPV4.test(hostname) || IPV6.test(hostname);
}

/** `::1` -> `[::1]`, names and IPv4 lowercased: a listen address as a Host header names it. */
function asHostname(listenHost: string): string {
  const host = listenHost.trim().toLowerCase();
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Whether a server listening on `listenHost` is reachable from this machine only. */
export function isLoopbackHost(listenHost: string): boolean {
  const host = asHostname(listenHost);
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

function nameAllowed(hostname: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    const name = entry.trim().toLowerCase();
    return name.startsWith('.')
      ? hostname.endsWith(name) && hostname.length > name.length
      : hostname === name;
  });
}

/** Why `host` is not a name this server answers to, or undefined when it is. */
function hostRefusal(policy: LocalRequestPolicy, host: string | undefined): string | undefined {
  if (!host) return 'the request has no Host header';
  const parsed = parseHostHeader(host);
  if (!parsed) return `the Host header ${JSON.stringify(host)} is not host[:port]`;
  const { hostname } = parsed;
  const listen = asHostname(policy.listenHost);
  if (nameAllowed(hostname, policy.allowedHosts ?? [])) return undefined;
  if (WILDCARD_HOSTS.has(listen)) {
    if (isIpLiteral(hostname) || hostname === 'localhost') return undefined;
  } else if (listen === 'localhost') {
    if (['localhost', '127.0.0.1', '[::1]'].includes(hostname)) return undefined;
  } else if (hostname === listen || (hostname === 'localhost' && isLoopbackHost(listen))) {
    return undefined;
  }
  return (
    `Host ${JSON.stringify(hostname)} is not an address of this server (a page on a rebound DNS name?); ` +
    'a name it is really reached by must be allowed explicitly'
  );
}

/** `scheme://host[:port]` of an Origin header, without a default port; undefined if malformed. */
function originHost(origin: string): { scheme: string; host: string } | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase())
    return undefined;
  return { scheme: url.protocol, host: url.host };
}

/** The Host header without the scheme's default port, for comparing with an origin's host. */
function hostForScheme(host: string, scheme: string): string {
  const h = host.trim().toLowerCase();
  const defaultPort = scheme === 'https:' ? ':443' : ':80';
  return h.endsWith(defaultPort) ? h.slice(0, -defaultPort.length) : h;
}

/** Why the page that sent this request may not, or undefined when it may (or is not a page). */
function originRefusal(policy: LocalRequestPolicy, headers: LocalRequestHeaders): string | undefined {
  const origin = headers.origin;
  if (origin === undefined) {
    const site = headers['sec-fetch-site']?.toLowerCase();
    return site === 'cross-site' || site === 'same-site'
      ? `a ${site} request from a page without an Origin header (embedded from another site)`
      : undefined;
  }
  if ((policy.allowedOrigins ?? []).includes(origin)) return undefined;
  const parsed = originHost(origin);
  if (parsed && headers.host && parsed.host === hostForScheme(headers.host, parsed.scheme)) return undefined;
  return `Origin ${JSON.stringify(origin)} is not this server's origin nor an allowed one`;
}

/** Why this request must be refused (403), or undefined when it may be served. */
export function checkLocalRequest(
  policy: LocalRequestPolicy,
  headers: LocalRequestHeaders,
): LocalRequestRefusal | undefined {
  const host = hostRefusal(policy, headers.host);
  if (host) return { what: 'host', reason: host };
  const origin = originRefusal(policy, headers);
  return origin ? { what: 'origin', reason: origin } : undefined;
}

/** Why `name` cannot be an allowed host name (`ui.example`, `.example`), or undefined. */
export function allowedHostProblem(name: string): string | undefined {
  const bare = name.trim().toLowerCase().replace(/^\./, '');
  return NAME.test(bare) || IPV4.test(bare) || IPV6.test(bare)
    ? undefined
    : `${JSON.stringify(name)} is not a host name (like ui.example, or .example for every name under it)`;
}
