// Reactions: the emoji picker (opened from a bubble's React button or its reaction pill, placed
// above or below it) and the human's reaction, shown at once and sent to the simulator; picking
// the current emoji again removes it.
// @ts-check

import { errorMessage, postJson } from './api.js';
import { el, els } from './dom.js';
import { statusOf } from './entries.js';
import { refresh } from './live.js';
import { closeRowActions, updateMessage } from './message.js';
import { state } from './state.js';
import { toast } from './toast.js';

const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'];

/**
 * Opens the picker for a message next to `anchor`; closes it if it is already open for it.
 * @param {string} messageId
 * @param {Element} anchor
 */
export function openPicker(messageId, anchor) {
  if (state.pickerFor === messageId && !els.picker.hidden) {
    closePicker();
    return;
  }
  state.pickerFor = messageId;
  const current = state.reactions.get(messageId) || '';
  els.picker.replaceChildren(
    ...REACTIONS.map((emoji) =>
      el('button', {
        type: 'button',
        role: 'menuitem',
        'aria-label': emoji === current ? `Remove reaction ${emoji}` : `React with ${emoji}`,
        'aria-pressed': String(emoji === current),
        'data-emoji': emoji,
        text: emoji,
        onclick: () => {
          closePicker();
          closeRowActions();
          void react(messageId, emoji === current ? '' : emoji);
        },
      }),
    ),
  );
  els.picker.hidden = false;
  const a = anchor.getBoundingClientRect();
  const p = els.picker.getBoundingClientRect();
  const left = Math.min(Math.max(8, a.left + a.width / 2 - p.width / 2), window.innerWidth - p.width - 8);
  const top = a.top - p.height - 8 > 8 ? a.top - p.height - 8 : a.bottom + 8;
  els.picker.style.left = `${left}px`;
  els.picker.style.top = `${top}px`;
  const first = els.picker.querySelector('button');
  if (first) first.focus({ preventScroll: true });
}

export function closePicker() {
  els.picker.hidden = true;
  state.pickerFor = null;
}

/**
 * Sets (or with '' removes) the human's reaction to a message.
 * @param {string} messageId
 * @param {string} emoji
 */
async function react(messageId, emoji) {
  // Show it at once; the conversation refresh that follows confirms it.
  const row = /** @type {HTMLElement | null} */ (
    els.list.querySelector(`[data-testid="message"][data-id="${CSS.escape(messageId)}"]`)
  );
  const entry = state.entriesById.get(messageId);
  if (emoji) state.reactions.set(messageId, emoji);
  else state.reactions.delete(messageId);
  if (row && entry) {
    updateMessage(row, {
      entry,
      status: statusOf(entry),
      reaction: emoji,
      groupStart: row.classList.contains('group-start'),
    });
  }
  try {
    await postJson('human', { type: 'reaction', reaction: { message_id: messageId, emoji } });
  } catch (err) {
    toast(`Could not react: ${errorMessage(err)}`);
    void refresh();
  }
}

/** Closes the picker when the window resizes or the list scrolls under it. */
export function initReactions() {
  window.addEventListener('resize', closePicker);
  els.scroller.addEventListener('scroll', () => {
    if (!els.picker.hidden) closePicker();
  });
}
