// Draws the conversation: reconciles the message list with the rows (keeping unchanged elements,
// rebuilding changed ones, in order), then the header, typing dots, scroll position, jump button,
// read receipts and page title.
// @ts-check

import { els } from './dom.js';
import { renderHeader, renderTitle, renderTyping } from './header.js';
import { buildMessage, updateMessage } from './message.js';
import { markRead } from './read.js';
import { buildDay, buildRows, contentSignature } from './rows.js';
import { renderJump, scrollToBottom } from './scroll.js';
import { state } from './state.js';

/** Brings the whole page up to date with `state`. */
export function render() {
  const conv = state.conversation;
  state.entriesById = new Map(((conv && conv.entries) || []).map((e) => [e.id, e]));
  // An optimistic bubble goes as soon as the real message is in the conversation.
  state.pending = state.pending.filter((p) => !(p.id && state.entriesById.has(p.id)));

  const rows = buildRows();
  const list = els.list;
  /** @type {Map<string | undefined, HTMLElement>} */
  const existing = new Map();
  for (const child of list.children) {
    const node = /** @type {HTMLElement} */ (child);
    existing.set(node.dataset.key, node);
  }

  let cursor = list.firstElementChild;
  let added = 0;
  for (const row of rows) {
    const sig = contentSignature(row);
    let node = existing.get(row.key);
    if (node && node.dataset.sig !== sig) {
      if (node === cursor) cursor = cursor.nextElementSibling;
      node.remove();
      node = undefined;
    } else if (!node) {
      if (row.kind === 'msg' && !row.pending) added += 1;
    }
    if (!node) {
      node = row.kind === 'day' ? buildDay(row) : buildMessage(row);
      node.dataset.key = row.key;
      node.dataset.sig = sig;
    }
    existing.delete(row.key);
    if (row.kind === 'msg') updateMessage(node, row);
    if (node === cursor) cursor = cursor.nextElementSibling;
    else list.insertBefore(node, cursor);
  }
  for (const stale of existing.values()) stale.remove();

  renderHeader();
  renderTyping();

  if (state.stick) {
    scrollToBottom();
  } else if (added > 0 && state.lastCount > 0) {
    state.unseenBelow += added;
  }
  state.lastCount += added;
  renderJump();
  markRead();
  renderTitle();
}
