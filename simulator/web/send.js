// Sending the human's messages: each shows at once as a pending bubble (a clock; "Uploading…"
// while a file goes up), replaced by the real message once the conversation has it; a failed
// send says why and goes away after 8 s.
// @ts-check

import { postJson, uploadMedia } from './api.js';
import { render } from './render.js';
import { state } from './state.js';
import { toast } from './toast.js';

/** @import { Attachment, Entry, Pending } from './state.js' */

let pendingSeq = 0;

/**
 * Shows a message being sent.
 * @param {Entry} entry
 * @param {Partial<Pending>} [extra]
 * @returns {Pending}
 */
function addPending(entry, extra) {
  const p = { key: String(++pendingSeq), entry, createdAt: Date.now(), ...extra };
  state.pending.push(p);
  state.stick = true;
  render();
  return p;
}

/**
 * The simulator took the message: the pending bubble goes once the conversation shows it.
 * @param {Pending} p
 * @param {string} id
 */
function settlePending(p, id) {
  p.id = id;
  if (state.entriesById.has(id)) render();
}

/**
 * @param {Pending} p
 * @param {unknown} err
 */
function failPending(p, err) {
  p.failed = true;
  p.uploading = false;
  p.error = (err instanceof Error && err.message) || String(err);
  render();
  toast(`Message not sent: ${p.error}`);
  setTimeout(() => {
    state.pending = state.pending.filter((x) => x !== p);
    render();
  }, 8000);
}

/**
 * @param {string} text
 * @param {Entry | null} replyTo
 */
export async function sendText(text, replyTo) {
  /** @type {Record<string, unknown> & { context?: { id?: string } }} */
  const body = { type: 'text', text: { body: text } };
  if (replyTo) body.context = { id: replyTo.id };
  const p = addPending({ direction: 'in', type: 'text', payload: { body: text }, context: body.context });
  try {
    /** @type {{ id: string }} */
    const result = await postJson('human', body);
    settlePending(p, result.id);
  } catch (err) {
    failPending(p, err);
  }
}

/**
 * Uploads the file, then sends it as a message of its kind.
 * @param {Attachment} attachment
 * @param {string} caption
 * @param {Entry | null} replyTo
 */
export async function sendAttachment(attachment, caption, replyTo) {
  const { file, kind, previewUrl } = attachment;
  /** @type {{ caption?: string, filename?: string }} */
  const object = {};
  if (caption && kind !== 'audio' && kind !== 'sticker') object.caption = caption;
  if (kind === 'document') object.filename = file.name || 'document';
  const context = replyTo ? { id: replyTo.id } : undefined;
  const p = addPending(
    { direction: 'in', type: kind, payload: { ...object }, context },
    { previewUrl, fileName: file.name, mime: file.type, uploading: true },
  );
  try {
    const uploaded = await uploadMedia(file, kind);
    p.uploading = false;
    p.entry = { ...p.entry, payload: { ...object, id: uploaded.id } };
    render();
    /** @type {Record<string, unknown>} */
    const body = { type: kind, [kind]: { id: uploaded.id, ...object } };
    if (context) body.context = context;
    /** @type {{ id: string }} */
    const result = await postJson('human', body);
    settlePending(p, result.id);
  } catch (err) {
    failPending(p, err);
  }
}
