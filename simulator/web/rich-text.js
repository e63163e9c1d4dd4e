// Rich text in message bodies and captions: links, and the chat's formatting markers (*bold*,
// _italic_, ~strike~, `code`, ```code```), drawn as elements, never as HTML; plus the plain
// one-line form for previews and the test for an emoji-only ("jumbo") message.
// @ts-check

import { el } from './dom.js';

const URL_RE = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;
const STYLE_RE =
  /(?<![\w*_~`])(```[\s\S]+?```|`[^`\n]+`|\*(?!\s)[^*\n]+?(?<!\s)\*|_(?!\s)[^_\n]+?(?<!\s)_|~(?!\s)[^~\n]+?(?<!\s)~)(?![\w*_~`])/g;

/**
 * Appends `text` to `into`, its formatting markers turned into elements.
 * @param {string} text
 * @param {HTMLElement} into
 */
function styled(text, into) {
  let last = 0;
  for (const m of text.matchAll(STYLE_RE)) {
    if (m.index > last) into.append(text.slice(last, m.index));
    const token = m[0];
    let node;
    if (token.startsWith('```')) node = el('code', { text: token.slice(3, -3) });
    else if (token.startsWith('`')) node = el('code', { text: token.slice(1, -1) });
    else if (token.startsWith('*')) node = el('strong', { text: token.slice(1, -1) });
    else if (token.startsWith('_')) node = el('em', { text: token.slice(1, -1) });
    else node = el('s', { text: token.slice(1, -1) });
    into.append(node);
    last = m.index + token.length;
  }
  if (last < text.length) into.append(text.slice(last));
}

/**
 * The text without its formatting markers, for one-line previews.
 * @param {string} text
 */
export function plain(text) {
  return text.replace(STYLE_RE, (token) =>
    token.startsWith('```') ? token.slice(3, -3) : token.slice(1, -1),
  );
}

/**
 * Appends `text` to `into` with its links and formatting; answers `into`.
 * @template {HTMLElement} T
 * @param {string} text
 * @param {T} into
 * @returns {T}
 */
export function richText(text, into) {
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    if (m.index > last) styled(text.slice(last, m.index), into);
    into.append(el('a', { href: m[0], target: '_blank', rel: 'noopener noreferrer', text: m[0] }));
    last = m.index + m[0].length;
  }
  if (last < text.length) styled(text.slice(last), into);
  return into;
}

/**
 * Whether the text is one to three emoji alone, drawn large.
 * @param {string} text
 */
export function isJumboEmoji(text) {
  const t = text.trim();
  if (!t || t.length > 16) return false;
  return /^(?:\p{Extended_Pictographic}(?:\uFE0F|\u200D|\p{Emoji_Modifier}|\p{Extended_Pictographic})*\s*){1,3}$/u.test(
    t,
  );
}
