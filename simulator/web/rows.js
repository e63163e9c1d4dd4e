// The rows of the message list, worked out from the conversation and the pending sends: messages
// in order with their status and reaction, grouped by author, with a day separator before each
// new day; plus the signature that tells when a row must be rebuilt, and the separator element.
// @ts-check

import { el } from './dom.js';
import { agentDisplayName, isMine, quotedId, serverId, snippet, statusOf } from './entries.js';
import { dayKey, dayLabel, toMillis } from './format.js';
import { state } from './state.js';

/** @import { Entry, Pending } from './state.js' */

/**
 * A message in the list; `pending` (with `localPreview`, `fileName`, `mime`) while it is being sent.
 * @typedef {object} MessageRow
 * @property {'msg'} kind
 * @property {string} key
 * @property {Entry} entry
 * @property {number} ms
 * @property {string} status
 * @property {string} reaction the human's reaction, or ''
 * @property {boolean} groupStart first of a run of messages by one author
 * @property {Pending} [pending]
 * @property {string} [localPreview]
 * @property {string} [fileName]
 * @property {string} [mime]
 */

/** @typedef {{ kind: 'day', key: string, label: string }} DayRow */
/** @typedef {MessageRow | DayRow} Row */

/**
 * The rows to show; also keeps `state.reactions` (message id -> the human's emoji) up to date.
 * @returns {Row[]}
 */
export function buildRows() {
  const conv = state.conversation;
  const entries = conv ? [...(conv.entries || [])] : [];
  entries.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));

  /** @type {Map<string, string>} */
  const reactions = new Map();
  const visible = [];
  for (const entry of entries) {
    if (entry.type === 'reaction') {
      const r = entry.payload || {};
      if (!r.message_id) continue;
      if (r.emoji) reactions.set(r.message_id, r.emoji);
      else reactions.delete(r.message_id);
    } else {
      visible.push(entry);
    }
  }
  state.reactions = reactions;

  /** @type {MessageRow[]} */
  const items = visible.map((entry) => ({
    kind: 'msg',
    key: `m:${entry.id}`,
    entry,
    ms: toMillis(entry.timestamp),
    status: statusOf(entry),
    reaction: reactions.get(serverId(entry)) || '',
    groupStart: false,
  }));
  for (const p of state.pending) {
    items.push({
      kind: 'msg',
      key: `p:${p.key}`,
      entry: p.entry,
      ms: p.createdAt,
      status: p.failed ? 'failed' : 'pending',
      reaction: '',
      groupStart: false,
      pending: p,
      localPreview: p.previewUrl,
      fileName: p.fileName,
      mime: p.mime,
    });
  }

  /** @type {Row[]} */
  const rows = [];
  let lastDay = '';
  let lastAuthor = '';
  for (const item of items) {
    const day = dayKey(item.ms);
    if (day !== lastDay) {
      // Keyed by the message it opens, so that a day seen twice (clock moved back) stays unique.
      rows.push({ kind: 'day', key: `d:${item.key}`, label: dayLabel(item.ms) });
      lastDay = day;
      lastAuthor = '';
    }
    const author = isMine(item.entry) ? 'h' : 'a';
    item.groupStart = author !== lastAuthor || item.entry.type === 'sticker';
    lastAuthor = author;
    rows.push(item);
  }
  return rows;
}

/**
 * What a row's element is built from: when it changes, the element is rebuilt.
 * @param {Row} row
 */
export function contentSignature(row) {
  if (row.kind === 'day') return `day:${row.label}`;
  const e = row.entry;
  const q = quotedId(e);
  const quoted = q ? state.entriesById.get(q) : null;
  return JSON.stringify([
    e.type,
    e.payload,
    e.timestamp,
    q,
    quoted ? snippet(quoted) : '',
    agentDisplayName(),
    row.pending ? [row.pending.failed, row.pending.uploading, row.pending.error] : null,
  ]);
}

/**
 * A day separator ("Today", "Yesterday", ...).
 * @param {DayRow} row
 */
export function buildDay(row) {
  return el(
    'div',
    { class: 'day', 'data-testid': 'day-separator', role: 'separator' },
    el('span', { text: row.label }),
  );
}
