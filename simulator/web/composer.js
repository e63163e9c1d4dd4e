// The composer: the message box (grows with its text; Enter sends, Shift+Enter breaks the line),
// the send button (enabled when there is text or an attachment), and the submit that hands the
// text, attachment and quote to send.js.
// @ts-check

import { clearAttachmentBarOnly } from './attach.js';
import { els } from './dom.js';
import { cancelReply } from './reply.js';
import { sendAttachment, sendText } from './send.js';
import { state } from './state.js';

export function updateSendButton() {
  els.send.disabled = !(state.attachment || els.input.value.trim());
}

function autoGrow() {
  els.input.style.height = 'auto';
  els.input.style.height = `${Math.min(els.input.scrollHeight, 140)}px`;
}

/** Wires the message box and the form. */
export function initComposer() {
  els.input.addEventListener('input', () => {
    autoGrow();
    updateSendButton();
  });

  els.input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      els.form.requestSubmit();
    }
  });

  els.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = els.input.value.trim();
    const attachment = state.attachment;
    if (!text && !attachment) return;
    const replyTo = state.replyTo;
    els.input.value = '';
    autoGrow();
    cancelReply();
    if (attachment) {
      state.attachment = null;
      clearAttachmentBarOnly();
      void sendAttachment(attachment, text, replyTo);
    } else {
      void sendText(text, replyTo);
    }
    updateSendButton();
    els.input.focus();
  });
}
