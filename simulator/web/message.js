// A message row of the list: its bubble (content from content.js), the React / Reply actions
// beside it (on hover, or on tap on touch screens), the upload and failure notes of a message
// being sent, and the parts updated in place: ticks, reaction pill and grouping.
// @ts-check

import { contentFor } from './content.js';
import { el, els, targetOf } from './dom.js';
import { agentDisplayName, isMine, serverId, snippet } from './entries.js';
import { timeFormat } from './format.js';
import { icon } from './icons.js';
import { openPicker } from './reactions.js';
import { startReply } from './reply.js';
import { updateTicks } from './ticks.js';

/** @import { MessageRow } from './rows.js' */

/** @typedef {Pick<MessageRow, 'entry' | 'status' | 'reaction' | 'groupStart' | 'pending'>} MessageState */

const NO_HOVER = window.matchMedia('(hover: none)');

/**
 * The element a click is on.
 * @param {MouseEvent} ev
 */
const clicked = (ev) => /** @type {HTMLElement} */ (ev.currentTarget);

/**
 * A new message row (ticks, reaction and grouping are left to `updateMessage`).
 * @param {MessageRow} row
 */
export function buildMessage(row) {
  const entry = row.entry;
  const mine = isMine(entry);
  const rowEl = el('div', {
    class: `row ${mine ? 'mine' : 'theirs'}`,
    'data-testid': 'message',
    'data-id': entry.id || row.key,
    'data-author': mine ? 'human' : 'agent',
    'data-direction': entry.direction,
    'data-type': entry.type,
  });
  const bubble = el('div', { class: 'bubble' });
  const kind = contentFor(row, bubble);
  bubble.className = `bubble ${kind
    .split(' ')
    .map((k) => `k-${k}`)
    .join(' ')}`;

  const label = `${mine ? 'You' : agentDisplayName()} at ${timeFormat.format(row.ms)}: ${snippet(entry)}`;
  bubble.setAttribute('aria-label', label);
  bubble.setAttribute('role', 'group');
  rowEl.append(bubble);

  if (row.pending) {
    rowEl.classList.add('pending');
    if (row.pending.uploading) {
      const meta = /** @type {Element} */ (bubble.querySelector('.meta'));
      meta.before(
        el(
          'div',
          { class: 'upload-progress' },
          el('span', { class: 'spinner', 'aria-hidden': 'true' }),
          'Uploading…',
        ),
      );
    }
    if (row.pending.failed) {
      rowEl.classList.add('failed');
      bubble.append(el('div', { class: 'failed-note', text: `Not sent: ${row.pending.error}` }));
    }
    return rowEl;
  }

  const id = serverId(entry);
  const actions = el('div', { class: 'actions' });
  actions.append(
    el(
      'button',
      {
        type: 'button',
        class: 'action',
        'aria-label': 'React',
        title: 'React',
        'data-testid': 'react-button',
        onclick: (ev) => openPicker(id, clicked(ev)),
      },
      icon('smile', '0 0 24 24'),
    ),
    el(
      'button',
      {
        type: 'button',
        class: 'action',
        'aria-label': 'Reply',
        title: 'Reply',
        'data-testid': 'reply-button',
        onclick: () => startReply(entry),
      },
      icon('reply', '0 0 24 24'),
    ),
  );
  rowEl.append(actions);
  bubble.addEventListener('dblclick', (ev) => {
    if (targetOf(ev).closest('a, button, video, audio')) return;
    startReply(entry);
  });
  // Without hover (phones), a tap on the bubble shows its React / Reply buttons.
  bubble.addEventListener('click', (ev) => {
    if (!NO_HOVER.matches || targetOf(ev).closest('a, button, video, audio, img')) return;
    const open = !rowEl.classList.contains('actions-open');
    closeRowActions();
    rowEl.classList.toggle('actions-open', open);
  });
  return rowEl;
}

/**
 * The parts of a message that change in place: ticks, reaction, grouping.
 * @param {HTMLElement} rowEl
 * @param {MessageState} row
 */
export function updateMessage(rowEl, row) {
  rowEl.classList.toggle('group-start', row.groupStart);
  updateTicks(rowEl, row.status);
  rowEl.dataset.status = row.status;
  if (!row.pending) rowEl.dataset.read = String(row.status === 'read');

  const bubble = /** @type {HTMLElement} */ (rowEl.querySelector('.bubble'));
  const current = /** @type {HTMLElement | null} */ (bubble.querySelector(':scope > .reaction'));
  const emoji = row.reaction || '';
  rowEl.classList.toggle('has-reaction', Boolean(emoji));
  if (!emoji) {
    if (current) current.remove();
  } else if (!current || current.dataset.emoji !== emoji) {
    const pill = el('button', {
      type: 'button',
      class: 'reaction',
      'data-testid': 'reaction',
      'data-emoji': emoji,
      'aria-label': `You reacted ${emoji}. Change reaction.`,
      text: emoji,
      onclick: (ev) => openPicker(serverId(row.entry), clicked(ev)),
    });
    if (current) current.replaceWith(pill);
    else bubble.append(pill);
  }
}

/** Hides the React / Reply buttons a tap opened. */
export function closeRowActions() {
  for (const row of els.list.querySelectorAll('.row.actions-open')) row.classList.remove('actions-open');
}
