/**
 * How the simulator serves media bytes (the control API's `/_control/media/<id>` for the web chat,
 * and the agent API's download) on its own origin, next to the chat and the control API: never
 * as a page. Whatever a human or an agent uploaded (`text/html`, `image/svg+xml` with script) is
 * a download (`Content-Disposition: attachment`), its type is not sniffed into something else
 * (`nosniff`), and were a browser to render it anyway it would run in a sandbox with no script and
 * no origin of its own (`Content-Security-Policy: sandbox`). Images still show in the chat: those
 * headers do not apply to an `<img>`. Other sites may not embed it (`Cross-Origin-Resource-Policy`).
 */

/** A MIME type as the simulator stores it (`type/subtype`, no parameters). */
const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** `filename` as a quoted-string: printable ASCII without quotes or backslashes. */
function asciiName(name: string): string {
  const safe = name.replace(/[^\x20-\x7e]|["\\]/g, '_').trim();
  return safe === '' ? 'media' : safe.slice(0, 200);
}

/** RFC 8187 `filename*` value: UTF-8, percent-encoded. */
const extendedName = (name: string) =>
  `UTF-8''${encodeURIComponent(name.slice(0, 200)).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

/** The headers of a media answer (the caller adds `content-length`). */
export function mediaHeaders(media: {
  id: string;
  mimeType: string;
  filename?: string;
}): Record<string, string> {
  const name = media.filename?.trim() || `media-${media.id}`;
  return {
    'content-type': MIME.test(media.mimeType) ? media.mimeType : 'application/octet-stream',
    'content-disposition': `attachment; filename="${asciiName(name)}"; filename*=${extendedName(name)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'private, max-age=3600',
  };
}
