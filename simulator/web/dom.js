// DOM plumbing of the web chat: `els`, the page's fixed elements from index.html, and `el()`, which
// builds an element from attributes and children.
// @ts-check

/**
 * The element `document.querySelector(selector)` finds; throws if it is missing or of another kind.
 * @template {Element} T
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
function find(selector, type) {
  const node = document.querySelector(selector);
  if (!(node instanceof type)) throw new Error(`web chat: no ${type.name} ${selector} in the page`);
  return node;
}

/**
 * The element with this id (`document.getElementById`); throws if it is missing or of another kind.
 * @template {Element} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`web chat: no ${type.name} #${id} in the page`);
  return node;
}

export const els = {
  header: find('.chat-header', HTMLElement),
  avatar: find('[data-testid="agent-avatar"]', HTMLElement),
  agentName: find('[data-testid="agent-name"]', HTMLElement),
  status: find('[data-testid="agent-status"]', HTMLElement),
  me: find('[data-testid="human-identity"]', HTMLElement),
  meName: find('[data-testid="human-name"]', HTMLElement),
  meAvatar: find('.me-avatar', HTMLElement),
  body: byId('chat-body', HTMLElement),
  scroller: byId('scroller', HTMLElement),
  list: byId('messages', HTMLElement),
  typing: byId('typing', HTMLElement),
  jump: byId('jump', HTMLButtonElement),
  jumpCount: byId('jump-count', HTMLElement),
  dropHint: byId('drop-hint', HTMLElement),
  form: byId('composer-form', HTMLFormElement),
  input: byId('composer-input', HTMLTextAreaElement),
  send: byId('send-button', HTMLButtonElement),
  attachButton: byId('attach-button', HTMLButtonElement),
  attachMenu: byId('attach-menu', HTMLElement),
  fileMedia: byId('file-media', HTMLInputElement),
  fileDocument: byId('file-document', HTMLInputElement),
  fileAudio: byId('file-audio', HTMLInputElement),
  quoteBar: byId('quote-bar', HTMLElement),
  quoteBarAuthor: byId('quote-bar-author', HTMLElement),
  quoteBarText: byId('quote-bar-text', HTMLElement),
  quoteBarCancel: byId('quote-bar-cancel', HTMLButtonElement),
  attachmentBar: byId('attachment-bar', HTMLElement),
  attachmentPreview: byId('attachment-preview', HTMLElement),
  attachmentName: byId('attachment-name', HTMLElement),
  attachmentMeta: byId('attachment-meta', HTMLElement),
  attachmentCancel: byId('attachment-cancel', HTMLButtonElement),
  picker: byId('emoji-picker', HTMLElement),
  toast: byId('toast', HTMLElement),
};

/**
 * Attributes for `el()`: `class`, `text` (the text content), `on<event>` (a listener), any other
 * name an attribute (`true` sets it empty). `undefined`, `null` and `false` leave it out.
 * @typedef {Record<string, string | number | boolean | null | undefined | ((ev: MouseEvent) => void)>} Attrs
 */

/** @typedef {Node | string | null | undefined | false} Child */

/**
 * A new element with these attributes and children (`null`, `undefined` and `false` are skipped).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = String(value);
      else if (key === 'text') node.textContent = String(value);
      else if (key.startsWith('on'))
        node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
      else node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

/**
 * The element an event happened on (the page's listeners only watch elements).
 * @param {Event} ev
 * @returns {Element}
 */
export function targetOf(ev) {
  return /** @type {Element} */ (ev.target);
}
