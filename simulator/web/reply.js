// Replying: the quote bar above the composer that shows the message being answered, opened by a
// bubble's Reply button (or a double click) and closed by its cancel button or Escape.
// @ts-check

import { els } from './dom.js';
import { agentDisplayName, isMine, serverId, snippet } from './entries.js';
import { closeRowActions } from './message.js';
import { keepPinned } from './scroll.js';
import { state } from './state.js';

/** @import { Entry } from './state.js' */

/**
 * Quotes `entry` in the message being written.
 * @param {Entry} entry
 */
export function startReply(entry) {
  closeRowActions();
  state.replyTo = entry;
  const byYou = isMine(entry);
  els.quoteBar.hidden = false;
  els.quoteBar.classList.toggle('by-you', byYou);
  els.quoteBar.dataset.quotedId = serverId(entry);
  els.quoteBarAuthor.textContent = byYou ? 'You' : agentDisplayName();
  els.quoteBarText.textContent = snippet(entry);
  els.input.focus();
  keepPinned();
}

/** Closes the quote bar: the next message quotes nothing. */
export function cancelReply() {
  state.replyTo = null;
  els.quoteBar.hidden = true;
  delete els.quoteBar.dataset.quotedId;
}

/** Wires the quote bar's cancel button. */
export function initReply() {
  els.quoteBarCancel.addEventListener('click', () => {
    cancelReply();
    els.input.focus();
  });
}
