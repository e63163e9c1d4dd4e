// The toast: a short-lived banner at the bottom of the page for errors (a message not sent, a
// reaction refused, the conversation not loading).
// @ts-check

import { els } from './dom.js';

let toastTimer = 0;

/**
 * Shows `message` for 4.5 s, replacing any toast still showing.
 * @param {string} message
 */
export function toast(message) {
  els.toast.textContent = message;
  els.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    els.toast.hidden = true;
  }, 4500);
}
