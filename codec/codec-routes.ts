/**
 * What the codec server serves, exactly: `POST /decode` and `POST /encode`, optionally under one
 * namespace segment (`/<namespace>/decode`, how Temporal's protocol lets one host serve several
 * namespaces), after the path is normalised (`.`/`..` resolved, as a browser or proxy would, and
 * repeated slashes folded, as a UI endpoint with a trailing slash produces). Anything else is not
 * found. The namespace comes from that segment or the UI's `X-Namespace` header; both given must
 * agree. Pure.
 */

/** A namespace name as Temporal allows it in a URL segment. */
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/** A request the codec server serves. */
export interface CodecRoute {
  operation: 'encode' | 'decode';
  /** The namespace the request is for, when it names one. */
  namespace?: string;
}

/** Why a request is not served: 404 (no such path) or 400 (namespaces disagree). */
export interface RouteRefusal {
  status: 400 | 404;
  reason: string;
}

/** The normalised path of a request target (`/a/./b/../decode?x` -> `/a/decode`); undefined if unusable. */
export function normalisedPath(target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(`http://codec.invalid${target.replace(/\/{2,}/g, '/')}`);
  } catch {
    return undefined;
  }
  return url.pathname.replace(/\/{2,}/g, '/');
}

/** The route of a request target and `X-Namespace` header, or why it is not served. */
export function codecRoute(target: string, namespaceHeader: string | undefined): CodecRoute | RouteRefusal {
  const path = normalisedPath(target);
  const m = path === undefined ? null : /^\/(?:([^/]+)\/)?(encode|decode)$/.exec(path);
  // A segment with percent-escapes is no namespace name: nothing to decode.
  if (!m || (m[1] !== undefined && !NAMESPACE.test(m[1])))
    return {
      status: 404,
      reason: 'not found: POST /decode, /encode, /<namespace>/decode or /<namespace>/encode',
    };
  const fromPath = m[1];
  const fromHeader = namespaceHeader?.trim() || undefined;
  if (fromHeader !== undefined && !NAMESPACE.test(fromHeader))
    return { status: 400, reason: 'X-Namespace is not a namespace name' };
  if (fromPath !== undefined && fromHeader !== undefined && fromPath !== fromHeader)
    return { status: 400, reason: `the path names namespace "${fromPath}" but X-Namespace "${fromHeader}"` };
  return { operation: m[2] as 'encode' | 'decode', namespace: fromPath ?? fromHeader };
}
