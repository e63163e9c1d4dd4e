// Inline SVG icons of the web chat: receipt ticks, the pending clock, the failed mark, and the
// reply, react and download glyphs.
// @ts-check

const SVG_NS = 'http://www.w3.org/2000/svg';
const ICONS = {
  tick: '<path d="M1.6 6.4 4.9 9.6 11.3 1.8" />',
  ticks: '<path d="M1.2 6.4 4.4 9.6 10.8 1.8" /><path d="M7.6 8.6 8.7 9.6 15.1 1.8" />',
  clock:
    '<circle cx="8" cy="6" r="4.8" /><path d="M8 3.4V6l1.8 1.2" stroke-linecap="round" stroke-linejoin="round" />',
  failed:
    '<circle cx="8" cy="6" r="5.2" fill="currentColor" stroke="none" /><path d="M8 3.3v3.3M8 8.3v.4" stroke="#fff" stroke-width="1.6" stroke-linecap="round" />',
  reply:
    '<path fill="currentColor" stroke="none" d="M10 8.2V4.5L3 11l7 6.5v-3.8c4.6 0 7.9 1.4 10.3 4.6-.9-4.7-3.7-9.3-10.3-10.1z" />',
  smile:
    '<circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="1.8" /><circle cx="9" cy="10" r="1.3" fill="currentColor" stroke="none" /><circle cx="15" cy="10" r="1.3" fill="currentColor" stroke="none" /><path d="M8.2 14a4.4 4.4 0 0 0 7.6 0" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" />',
  download:
    '<path d="M12 4v11m0 0-4.5-4.5M12 15l4.5-4.5M5 19.5h14" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />',
};

/** @typedef {keyof typeof ICONS} IconName */

/**
 * A new decorative `<svg>` holding the icon.
 * @param {IconName} name
 * @param {string} viewBox
 * @param {string} [extraClass]
 */
export function icon(name, viewBox, extraClass) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', viewBox);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  if (extraClass) svg.setAttribute('class', extraClass);
  svg.innerHTML = ICONS[name];
  return svg;
}
