// Web chat for the human side of the Agent Messaging Service simulator: the entry module that
// index.html loads (`<script type="module">`). Plain browser ES modules with JSDoc types, no
// build step; api.js lists the control API routes it uses. This file wires the features in
// order, closes popups on an outside click or Escape, and starts the page.
// @ts-check

import { clearAttachment, closeAttachMenu, initAttach } from './attach.js';
import { initComposer } from './composer.js';
import { els, targetOf } from './dom.js';
import { renderHeader } from './header.js';
import { connect, refresh } from './live.js';
import { closePicker, initReactions } from './reactions.js';
import { initRead } from './read.js';
import { cancelReply, initReply } from './reply.js';
import { initScroll } from './scroll.js';
import { state } from './state.js';

/** A click outside the emoji picker or the attach menu closes it; Escape closes the topmost thing. */
function initDismiss() {
  document.addEventListener('mousedown', (ev) => {
    const target = targetOf(ev);
    if (
      !els.picker.hidden &&
      !els.picker.contains(target) &&
      !target.closest('[data-testid="react-button"], .reaction')
    ) {
      closePicker();
    }
    if (!els.attachMenu.hidden && !els.attachMenu.contains(target) && !els.attachButton.contains(target)) {
      closeAttachMenu();
    }
  });

  document.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape') return;
    if (!els.picker.hidden) closePicker();
    else if (!els.attachMenu.hidden) closeAttachMenu();
    else if (state.attachment) clearAttachment();
    else if (state.replyTo) cancelReply();
  });
}

initScroll();
initRead();
initReply();
initDismiss();
initReactions();
initAttach();
initComposer();

renderHeader();
void refresh();
connect();
els.input.focus();
