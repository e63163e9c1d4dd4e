// The inside of a message bubble, by message type: text, photo or sticker, video, audio,
// document chip, or a note for a type the page cannot show; each with its caption and meta line.
// @ts-check

import { mediaUrl } from './api.js';
import { el } from './dom.js';
import { docKind } from './format.js';
import { icon } from './icons.js';
import { quoteElement } from './quotes.js';
import { isJumboEmoji, richText } from './rich-text.js';
import { keepPinned } from './scroll.js';
import { metaElement } from './ticks.js';

/** @import { MessageRow } from './rows.js' */

/**
 * A picture that keeps the view pinned when it loads, says so if it cannot, and (a photo, not a
 * sticker) opens full size in a new tab when clicked.
 * @param {string} src
 * @param {string} alt
 * @param {string} cls
 */
function mediaImage(src, alt, cls) {
  const img = el('img', { class: cls, src, alt, loading: 'lazy', decoding: 'async' });
  img.addEventListener('load', () => keepPinned());
  img.addEventListener('error', () => {
    img.replaceWith(el('div', { class: 'media-missing', text: 'Media unavailable' }));
  });
  if (cls === 'media-img') img.addEventListener('click', () => window.open(src, '_blank', 'noopener'));
  return img;
}

/**
 * A caption with links and formatting.
 * @param {string} caption
 */
function captionElement(caption) {
  return richText(caption, el('div', { class: 'caption', 'data-testid': 'message-caption' }));
}

/**
 * Fills the bubble of a message (quote first, if any); answers the bubble's kinds, for its
 * `k-<kind>` classes.
 * @param {MessageRow} row
 * @param {HTMLElement} bubble
 */
export function contentFor(row, bubble) {
  const entry = row.entry;
  const p = entry.payload || {};
  const quote = quoteElement(entry);
  if (quote) bubble.append(quote);

  switch (entry.type) {
    case 'text': {
      const body = p.body || '';
      const text = el('div', {
        class: isJumboEmoji(body) ? 'text jumbo' : 'text',
        'data-testid': 'message-text',
      });
      richText(body, text);
      bubble.append(text, metaElement(row, false));
      return 'text';
    }
    case 'image':
    case 'sticker': {
      const src = row.localPreview || (p.id ? mediaUrl(p.id) : null);
      const isSticker = entry.type === 'sticker';
      if (src)
        bubble.append(
          mediaImage(
            src,
            p.caption || (isSticker ? 'Sticker' : 'Photo'),
            isSticker ? 'sticker-img' : 'media-img',
          ),
        );
      else bubble.append(el('div', { class: 'media-missing', text: 'Photo' }));
      if (p.caption && !isSticker) {
        bubble.append(captionElement(p.caption));
        bubble.append(metaElement(row, false));
      } else {
        bubble.append(metaElement(row, true));
      }
      return isSticker ? 'sticker' : 'media';
    }
    case 'video': {
      const src = row.localPreview || (p.id ? mediaUrl(p.id) : null);
      bubble.append(el('video', { class: 'media-video', src, controls: true, preload: 'metadata' }));
      if (p.caption) {
        bubble.append(captionElement(p.caption));
        bubble.append(metaElement(row, false));
      } else {
        bubble.append(metaElement(row, true));
      }
      return 'media';
    }
    case 'audio': {
      const src = row.localPreview || (p.id ? mediaUrl(p.id) : null);
      bubble.append(
        el('audio', {
          class: 'media-audio',
          src,
          controls: true,
          preload: 'metadata',
          'aria-label': p.voice ? 'Voice message' : 'Audio',
        }),
        metaElement(row, false),
      );
      return 'audio';
    }
    case 'document': {
      bubble.append(documentChip(row));
      if (p.caption) bubble.append(captionElement(p.caption));
      else bubble.append(el('div', { class: 'meta-spacer' }));
      bubble.append(metaElement(row, false));
      return 'document media';
    }
    default: {
      bubble.append(
        el('div', { class: 'text unsupported', text: `Unsupported message (${entry.type})` }),
        metaElement(row, false),
      );
      return 'text';
    }
  }
}

/**
 * A document as a chip: kind icon, name, type; a download link once the file has a URL.
 * @param {MessageRow} row
 */
function documentChip(row) {
  const p = row.entry.payload || {};
  const name = p.filename || row.fileName || 'Document';
  const kind = docKind(name, p.mime_type);
  const href = p.id ? mediaUrl(p.id) : row.localPreview;
  return el(
    href ? 'a' : 'div',
    {
      class: 'doc',
      href,
      target: href ? '_blank' : undefined,
      rel: href ? 'noopener' : undefined,
      download: href ? name : undefined,
      'data-testid': 'document',
      'aria-label': `Document ${name}. Download.`,
    },
    el('span', { class: 'doc-icon', 'data-kind': kind.kind, 'aria-hidden': 'true', text: kind.label }),
    el(
      'span',
      { class: 'doc-info' },
      el('div', { class: 'doc-name', text: name }),
      el('div', {
        class: 'doc-meta',
        text: [kind.label !== 'FILE' ? kind.label : '', p.mime_type || row.mime || '']
          .filter(Boolean)
          .join(' · '),
      }),
    ),
    el('span', { class: 'doc-dl', 'aria-hidden': 'true' }, icon('download', '0 0 24 24')),
  );
}
