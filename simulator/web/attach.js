// Attaching a file: the attach menu (photos & videos, document, audio) and its file inputs,
// drag and drop onto the chat, pasting a file, and the attachment bar above the composer that
// previews the file until it is sent or removed.
// @ts-check

import { updateSendButton } from './composer.js';
import { el, els, targetOf } from './dom.js';
import { docKind, formatBytes } from './format.js';
import { state } from './state.js';

/** @typedef {'media' | 'document' | 'audio'} Picked which menu item (or way) chose the file */

function openAttachMenu() {
  els.attachMenu.hidden = false;
  els.attachButton.setAttribute('aria-expanded', 'true');
  const first = els.attachMenu.querySelector('button');
  if (first) first.focus();
}

export function closeAttachMenu() {
  els.attachMenu.hidden = true;
  els.attachButton.setAttribute('aria-expanded', 'false');
}

/**
 * The message type a file is sent as.
 * @param {File} file
 * @param {Picked} picked
 */
function kindFor(file, picked) {
  if (picked === 'document') return 'document';
  if (picked === 'audio') return 'audio';
  const type = file.type || '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  return 'document';
}

/**
 * Attaches the file to the message being written (replacing any other) and shows it in the bar.
 * @param {File} file
 * @param {Picked} picked
 */
function setAttachment(file, picked) {
  clearAttachment();
  const kind = kindFor(file, picked);
  const previewUrl = URL.createObjectURL(file);
  state.attachment = { file, kind, previewUrl };
  els.attachmentBar.hidden = false;
  els.attachmentBar.dataset.kind = kind;
  els.attachmentName.textContent = file.name || kind;
  els.attachmentMeta.textContent = [
    kind.charAt(0).toUpperCase() + kind.slice(1),
    formatBytes(file.size),
    file.type,
  ]
    .filter(Boolean)
    .join(' · ');
  if (kind === 'image') {
    els.attachmentPreview.replaceChildren(el('img', { src: previewUrl, alt: '' }));
  } else {
    els.attachmentPreview.replaceChildren(docKind(file.name || '', file.type).label || kind.toUpperCase());
  }
  els.input.placeholder = kind === 'audio' ? 'Audio has no caption' : 'Add a caption';
  els.input.disabled = kind === 'audio';
  updateSendButton();
  if (kind !== 'audio') els.input.focus();
}

/** Removes the attachment, if any. */
export function clearAttachment() {
  if (!state.attachment) return;
  state.attachment = null;
  els.attachmentBar.hidden = true;
  els.attachmentPreview.replaceChildren();
  els.input.placeholder = 'Type a message';
  els.input.disabled = false;
  updateSendButton();
}

/** Hides the attachment bar after a send took the attachment (`state.attachment` already cleared). */
export function clearAttachmentBarOnly() {
  els.attachmentBar.hidden = true;
  els.attachmentPreview.replaceChildren();
  els.input.placeholder = 'Type a message';
  els.input.disabled = false;
}

/** Wires the menu, the file inputs, the bar's remove button, drag and drop, and paste. */
export function initAttach() {
  els.attachButton.addEventListener('click', () => {
    if (els.attachMenu.hidden) openAttachMenu();
    else closeAttachMenu();
  });

  els.attachMenu.addEventListener('click', (ev) => {
    const item = /** @type {HTMLElement | null} */ (targetOf(ev).closest('[data-pick]'));
    if (!item) return;
    closeAttachMenu();
    const pick = /** @type {Picked} */ (item.dataset.pick);
    const input = { media: els.fileMedia, document: els.fileDocument, audio: els.fileAudio }[pick];
    input.value = '';
    input.click();
  });

  els.attachmentCancel.addEventListener('click', () => {
    clearAttachment();
    els.input.focus();
  });

  /** @type {[HTMLInputElement, Picked][]} */
  const inputs = [
    [els.fileMedia, 'media'],
    [els.fileDocument, 'document'],
    [els.fileAudio, 'audio'],
  ];
  for (const [input, picked] of inputs) {
    input.addEventListener('change', () => {
      const file = input.files && input.files[0];
      if (file) setAttachment(file, picked);
    });
  }

  let dragDepth = 0;
  els.body.addEventListener('dragenter', (ev) => {
    if (!ev.dataTransfer || !Array.from(ev.dataTransfer.types).includes('Files')) return;
    dragDepth += 1;
    els.dropHint.hidden = false;
  });
  els.body.addEventListener('dragleave', () => {
    dragDepth = Math.max(0, dragDepth - 1);
    if (!dragDepth) els.dropHint.hidden = true;
  });
  els.body.addEventListener('dragover', (ev) => ev.preventDefault());
  els.body.addEventListener('drop', (ev) => {
    ev.preventDefault();
    dragDepth = 0;
    els.dropHint.hidden = true;
    const file = ev.dataTransfer && ev.dataTransfer.files[0];
    if (file) setAttachment(file, 'media');
  });

  els.input.addEventListener('paste', (ev) => {
    const file = ev.clipboardData && Array.from(ev.clipboardData.files)[0];
    if (file) {
      ev.preventDefault();
      setAttachment(file, 'media');
    }
  });
}
