// Receipts on message bubbles: the meta line (time and ticks) and the tick icon for each status:
// a clock while sending, one tick sent, two ticks delivered, two blue ticks read (the colour is
// in bubbles.css), a red mark when not delivered.
// @ts-check

import { el } from './dom.js';
import { timeFormat } from './format.js';
import { icon } from './icons.js';

const LABELS = /** @type {Record<string, string>} */ ({
  pending: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Not delivered',
});

/**
 * The tick icon of a status.
 * @param {string} status
 */
function tickIcon(status) {
  const name =
    status === 'read' || status === 'delivered'
      ? 'ticks'
      : status === 'pending'
        ? 'clock'
        : status === 'failed'
          ? 'failed'
          : 'tick';
  const svg = icon(name, '0 0 16 12');
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '1.6');
  return svg;
}

/**
 * The time and (empty until `updateTicks`) ticks of a bubble; `onMedia` lays them over a picture.
 * @param {{ ms: number }} row
 * @param {boolean} onMedia
 */
export function metaElement(row, onMedia) {
  const meta = el('div', { class: onMedia ? 'meta on-media' : 'meta' });
  meta.append(el('time', { datetime: new Date(row.ms).toISOString(), text: timeFormat.format(row.ms) }));
  const ticks = el('span', { class: 'ticks', 'data-testid': 'ticks' });
  meta.append(ticks);
  return meta;
}

/**
 * Shows `status` in the ticks of a message row (`data-status`, label and icon), if it changed.
 * @param {HTMLElement} rowEl
 * @param {string} status
 */
export function updateTicks(rowEl, status) {
  const ticks = /** @type {HTMLElement | null} */ (rowEl.querySelector('[data-testid="ticks"]'));
  if (!ticks || ticks.dataset.status === status) return;
  ticks.dataset.status = status;
  ticks.setAttribute('role', 'img');
  ticks.setAttribute('aria-label', LABELS[status] || status);
  ticks.title = LABELS[status] || status;
  ticks.replaceChildren(tickIcon(status));
}
