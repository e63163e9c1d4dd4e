// Quotes inside bubbles: the quoted message's author, snippet and thumbnail at the top of a reply,
// and the jump to the quoted message (scrolled into view and flashed) when it is clicked.
// @ts-check

import { mediaUrl } from './api.js';
import { el, els } from './dom.js';
import { agentDisplayName, isMine, quotedId, snippet } from './entries.js';
import { state } from './state.js';
import { toast } from './toast.js';

/** @import { Entry } from './state.js' */

/**
 * The quote of the message `entry` replies to, or null if it quotes none.
 * @param {Entry} entry
 */
export function quoteElement(entry) {
  const id = quotedId(entry);
  if (!id) return null;
  const quoted = state.entriesById.get(id);
  const byYou = quoted
    ? isMine(quoted)
    : String((entry.context && entry.context.from) || '').startsWith('user:');
  const author = byYou ? 'You' : agentDisplayName();
  const quote = el('button', {
    type: 'button',
    class: byYou ? 'quote by-you' : 'quote',
    'data-testid': 'quote',
    'data-quoted-id': id,
    'aria-label': `Quoted message from ${author}. Show it.`,
    onclick: () => flashMessage(id),
  });
  const main = el(
    'div',
    { class: 'quote-main' },
    el('div', { class: 'quote-author', text: author }),
    el('div', {
      class: 'quote-text',
      'data-testid': 'quote-text',
      text: quoted ? snippet(quoted) : 'Original message',
    }),
  );
  quote.append(main);
  if (
    quoted &&
    (quoted.type === 'image' || quoted.type === 'sticker') &&
    quoted.payload &&
    quoted.payload.id
  ) {
    quote.append(el('img', { class: 'quote-thumb', src: mediaUrl(quoted.payload.id), alt: '' }));
  }
  return quote;
}

/**
 * Scrolls the message into view and flashes its bubble; a toast if it is not in the list.
 * @param {string} id
 */
export function flashMessage(id) {
  const node = els.list.querySelector(`[data-testid="message"][data-id="${CSS.escape(id)}"]`);
  if (!node) {
    toast('The original message is not in this chat any more.');
    return;
  }
  node.scrollIntoView({ block: 'center', behavior: 'smooth' });
  const bubble = /** @type {HTMLElement} */ (node.querySelector('.bubble'));
  bubble.classList.remove('flash');
  void bubble.offsetWidth;
  bubble.classList.add('flash');
}
