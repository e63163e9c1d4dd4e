// Client of the simulator's control API, the only server the web chat talks to:
//   GET  _control/conversation   the whole conversation (re-fetched on every `change` event)
//   GET  _control/events         Server-Sent Events, `change` whenever anything moved (live.js)
//   POST _control/human          a message from the human (text, media, reaction, quoting)
//   POST _control/media?type=    raw bytes of a file the human attaches (octet-stream) -> { id }
//   GET  _control/media/<id>     bytes of a media item, for inline display
//   POST _control/read           the human read one of the agent's messages
// `?agent=<id>` in the page URL selects the agent; it is passed through to every route.
// @ts-check

/** @import { Conversation } from './state.js' */

const params = new URLSearchParams(window.location.search);
export const AGENT = params.get('agent') || '';

/**
 * Relative URL of a control API route, with `?agent=` when the page has one.
 * @param {string} path
 * @param {Record<string, string>} [query]
 */
export function controlUrl(path, query) {
  const qs = new URLSearchParams(query || {});
  if (AGENT) qs.set('agent', AGENT);
  const s = qs.toString();
  return `_control/${path}${s ? `?${s}` : ''}`;
}

/** @param {string} id */
export function mediaUrl(id) {
  return controlUrl(`media/${encodeURIComponent(id)}`);
}

/**
 * The parsed JSON of a response body. The simulator's answers are trusted to have the shape the
 * caller names.
 * @template T
 * @param {string} text
 * @returns {T}
 */
function parseJson(text) {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- the caller names the shape
  return JSON.parse(text);
}

/**
 * The simulator's error message of a failed response, else `HTTP <status>`.
 * @param {Response} res
 */
export async function errorText(res) {
  try {
    /** @type {{ error?: { message?: string, code?: number } } | null} */
    const body = parseJson(await res.text());
    const err = body && body.error;
    if (err) return err.message || (err.code !== undefined ? `error ${err.code}` : `HTTP ${res.status}`);
  } catch {
    // not JSON
  }
  return `HTTP ${res.status}`;
}

/**
 * The message of something thrown.
 * @param {unknown} err
 */
export function errorMessage(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * POSTs `body` as JSON (with the page's agent) and answers the parsed reply, `{}` if empty.
 * @template [T=Record<string, unknown>]
 * @param {string} path
 * @param {Record<string, unknown>} body
 * @returns {Promise<T>}
 */
export async function postJson(path, body) {
  const res = await fetch(controlUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(AGENT ? { agent: AGENT, ...body } : body),
  });
  if (!res.ok) throw new Error(await errorText(res));
  const text = await res.text();
  return parseJson(text || '{}');
}

/** The whole conversation. */
export async function getConversation() {
  const res = await fetch(controlUrl('conversation'), { cache: 'no-store' });
  if (!res.ok) throw new Error(await errorText(res));
  /** @type {Conversation} */
  const conversation = parseJson(await res.text());
  return conversation;
}

/**
 * Uploads the bytes of a file the human attached; answers the new media id.
 * @param {File} file
 * @param {string} kind image, video, audio or document: the file name when the file has none
 */
export async function uploadMedia(file, kind) {
  const type = file.type || 'application/octet-stream';
  const res = await fetch(controlUrl('media', { filename: file.name || kind, type }), {
    method: 'POST',
    // The control API takes file bytes as octet-stream only (a type no other site's page may send).
    headers: { 'content-type': 'application/octet-stream' },
    body: file,
  });
  if (!res.ok) throw new Error(await errorText(res));
  /** @type {{ id: string }} */
  const uploaded = parseJson(await res.text());
  return uploaded;
}
