// Scrolling of the message list: it stays pinned to the newest message unless the human scrolled
// up; then the jump button shows, with the count of messages that arrived below.
// @ts-check

import { els } from './dom.js';
import { state } from './state.js';

const STICK_THRESHOLD_PX = 90;

function distanceFromBottom() {
  const s = els.scroller;
  return s.scrollHeight - s.scrollTop - s.clientHeight;
}

/** Scrolls to the newest message and pins the view there. */
export function scrollToBottom() {
  els.scroller.scrollTop = els.scroller.scrollHeight;
  state.stick = true;
  state.unseenBelow = 0;
}

/** Scrolls to the newest message if the view is pinned (after something grew). */
export function keepPinned() {
  if (state.stick) els.scroller.scrollTop = els.scroller.scrollHeight;
}

/** The jump button and its count of unseen messages. */
export function renderJump() {
  const show = !state.stick;
  els.jump.hidden = !show;
  els.jumpCount.hidden = !(show && state.unseenBelow > 0);
  els.jumpCount.textContent = String(state.unseenBelow);
}

/** Follows the human's scrolling, size changes and the jump button. */
export function initScroll() {
  els.scroller.addEventListener(
    'scroll',
    () => {
      state.stick = distanceFromBottom() < STICK_THRESHOLD_PX;
      if (state.stick) state.unseenBelow = 0;
      renderJump();
    },
    { passive: true },
  );

  // The composer growing (quote bar, attachment, long text) or the window resizing must not
  // push the newest message out of view.
  new ResizeObserver(() => keepPinned()).observe(els.scroller);

  els.jump.addEventListener('click', () => {
    els.scroller.scrollTo({ top: els.scroller.scrollHeight, behavior: 'smooth' });
    state.unseenBelow = 0;
    renderJump();
  });
}
