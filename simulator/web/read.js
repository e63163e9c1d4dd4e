// Read receipts from the human: while the page is visible, the agent's messages are marked read
// (POST _control/read, retried twice) once delivered, or once they have been on screen for a
// while if the delivery receipt is late; while it is hidden, they count as unread in the title.
// @ts-check

import { postJson } from './api.js';
import { renderTitle } from './header.js';
import { state } from './state.js';

/** How long a message may sit at "sent" on screen before the human counts as having read it. */
const READ_SENT_AFTER_MS = 2500;

/** The agent's messages not read yet, while the page is hidden (0 while it is visible). */
export function countUnread() {
  const conv = state.conversation;
  if (!conv || document.visibilityState === 'visible') return 0;
  return (conv.entries || []).filter(
    (e) =>
      e.direction === 'out' &&
      e.type !== 'reaction' &&
      e.status !== 'read' &&
      !state.readRequested.has(/** @type {string} */ (e.id)),
  ).length;
}

let readTimer = 0;

/** Marks read what the human has now seen; checks again later for what is not due yet. */
export function markRead() {
  const conv = state.conversation;
  if (!conv || document.visibilityState !== 'visible') return;
  const now = Date.now();
  let recheck = false;
  for (const entry of conv.entries || []) {
    if (entry.direction !== 'out' || entry.type === 'reaction' || !entry.id) continue;
    const status = entry.status || 'sent';
    if (status === 'read' || status === 'failed' || state.readRequested.has(entry.id)) continue;
    let firstSeen = state.firstSeen.get(entry.id);
    if (firstSeen === undefined) {
      firstSeen = now;
      state.firstSeen.set(entry.id, now);
    }
    // A phone reads what was delivered to it; if the delivery receipt is late, the message
    // still counts as read once it has been on screen for a while.
    const seenFor = now - firstSeen;
    if (status !== 'delivered' && seenFor < READ_SENT_AFTER_MS) {
      recheck = true;
      continue;
    }
    void sendRead(entry.id);
  }
  clearTimeout(readTimer);
  if (recheck) readTimer = setTimeout(markRead, READ_SENT_AFTER_MS);
}

/**
 * Tells the simulator the human read the message; up to 3 attempts.
 * @param {string} id
 */
async function sendRead(id) {
  const attempts = (state.readRequested.get(id) || 0) + 1;
  state.readRequested.set(id, attempts);
  try {
    await postJson('read', { id });
  } catch (err) {
    if (attempts < 3) setTimeout(() => void sendRead(id), 1000 * attempts);
    else console.warn('could not mark read', id, err);
  }
}

/** Marks read (and updates the title) when the page becomes visible or hidden. */
export function initRead() {
  document.addEventListener('visibilitychange', () => {
    markRead();
    renderTitle();
  });
}
