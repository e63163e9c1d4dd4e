// Web chat for the human side of the Agent Messaging Service simulator.
// Plain browser JavaScript, no build step. It talks only to the simulator's control API:
//   GET  _control/conversation   the whole conversation (re-fetched on every `change` event)
//   GET  _control/events         Server-Sent Events, `change` whenever anything moved
//   POST _control/human          a message from the human (text, media, reaction, quoting)
//   POST _control/media          raw bytes of a file the human attaches -> { id }
//   GET  _control/media/<id>     bytes of a media item, for inline display
//   POST _control/read           the human read one of the agent's messages
// `?agent=<id>` in the page URL selects the agent; it is passed through to every route.
'use strict';

(() => {
  const params = new URLSearchParams(window.location.search);
  const AGENT = params.get('agent') || '';
  const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'];
  /** How long a message may sit at "sent" on screen before the human counts as having read it. */
  const READ_SENT_AFTER_MS = 2500;
  const STICK_THRESHOLD_PX = 90;
  const NO_HOVER = window.matchMedia('(hover: none)');

  const $ = (id) => document.getElementById(id);
  const els = {
    header: document.querySelector('.chat-header'),
    avatar: document.querySelector('[data-testid="agent-avatar"]'),
    agentName: document.querySelector('[data-testid="agent-name"]'),
    status: document.querySelector('[data-testid="agent-status"]'),
    me: document.querySelector('[data-testid="human-identity"]'),
    meName: document.querySelector('[data-testid="human-name"]'),
    meAvatar: document.querySelector('.me-avatar'),
    body: $('chat-body'),
    scroller: $('scroller'),
    list: $('messages'),
    typing: $('typing'),
    jump: $('jump'),
    jumpCount: $('jump-count'),
    dropHint: $('drop-hint'),
    form: $('composer-form'),
    input: $('composer-input'),
    send: $('send-button'),
    attachButton: $('attach-button'),
    attachMenu: $('attach-menu'),
    fileMedia: $('file-media'),
    fileDocument: $('file-document'),
    fileAudio: $('file-audio'),
    quoteBar: $('quote-bar'),
    quoteBarAuthor: $('quote-bar-author'),
    quoteBarText: $('quote-bar-text'),
    quoteBarCancel: $('quote-bar-cancel'),
    attachmentBar: $('attachment-bar'),
    attachmentPreview: $('attachment-preview'),
    attachmentName: $('attachment-name'),
    attachmentMeta: $('attachment-meta'),
    attachmentCancel: $('attachment-cancel'),
    picker: $('emoji-picker'),
    toast: $('toast'),
  };

  const state = {
    conversation: null,
    entriesById: new Map(),
    reactions: new Map(), // message id -> emoji (the human's current reaction)
    connected: false,
    replyTo: null, // entry being quoted
    attachment: null, // { file, kind, previewUrl }
    pending: [], // optimistic sends: { key, kind, text, fileName, previewUrl, id, failed, error, createdAt }
    stick: true, // keep the view pinned to the newest message
    unseenBelow: 0,
    firstSeen: new Map(), // agent message id -> ms when first rendered while visible
    readRequested: new Map(), // agent message id -> attempts
    pickerFor: null, // message id the emoji picker is open for
    lastCount: 0,
  };

  // ---------------------------------------------------------------- icons

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

  function icon(name, viewBox, extraClass) {
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', viewBox);
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    if (extraClass) svg.setAttribute('class', extraClass);
    svg.innerHTML = ICONS[name];
    return svg;
  }

  function tickIcon(status) {
    const name =
      status === 'read' || status === 'delivered'
        ? 'ticks'
        : status === 'pending'
          ? 'clock'
          : status === 'failed'
            ? 'failed'
            : 'tick';
    const svg = icon(name, '0 0 16 12');
    svg.setAttribute('fill', 'none');
    svg.setAttribute('stroke', 'currentColor');
    svg.setAttribute('stroke-width', '1.6');
    return svg;
  }

  // ---------------------------------------------------------------- small helpers

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [key, value] of Object.entries(attrs)) {
        if (value === undefined || value === null || value === false) continue;
        if (key === 'class') node.className = value;
        else if (key === 'text') node.textContent = value;
        else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value === true ? '' : String(value));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child);
    }
    return node;
  }

  function controlUrl(path, query) {
    const qs = new URLSearchParams(query || {});
    if (AGENT) qs.set('agent', AGENT);
    const s = qs.toString();
    return `_control/${path}${s ? `?${s}` : ''}`;
  }

  function mediaUrl(id) {
    return controlUrl(`media/${encodeURIComponent(id)}`);
  }

  async function errorText(res) {
    try {
      const body = await res.json();
      const err = body && body.error;
      if (err) return err.message || (err.code !== undefined ? `error ${err.code}` : `HTTP ${res.status}`);
    } catch {
      // not JSON
    }
    return `HTTP ${res.status}`;
  }

  async function postJson(path, body) {
    const res = await fetch(controlUrl(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(AGENT ? { agent: AGENT, ...body } : body),
    });
    if (!res.ok) throw new Error(await errorText(res));
    const text = await res.text();
    return text ? JSON.parse(text) : {};
  }

  let toastTimer = 0;
  function toast(message) {
    els.toast.textContent = message;
    els.toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      els.toast.hidden = true;
    }, 4500);
  }

  function toMillis(ts) {
    if (ts === undefined || ts === null || ts === '') return Date.now();
    if (typeof ts === 'number') return ts < 1e11 ? ts * 1000 : ts;
    if (/^\d+(\.\d+)?$/.test(String(ts))) {
      const n = Number(ts);
      return n < 1e11 ? n * 1000 : n;
    }
    const parsed = Date.parse(ts);
    return Number.isNaN(parsed) ? Date.now() : parsed;
  }

  const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
  const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long' });
  const dateFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric' });

  function dayKey(ms) {
    const d = new Date(ms);
    return `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
  }

  function dayLabel(ms) {
    const startOf = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
    const days = Math.round((startOf(new Date()) - startOf(new Date(ms))) / 86400000);
    if (days === 0) return 'Today';
    if (days === 1) return 'Yesterday';
    if (days > 1 && days < 7) return weekdayFormat.format(ms);
    return dateFormat.format(ms);
  }

  function formatBytes(n) {
    if (!Number.isFinite(n)) return '';
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
    return `${(n / 1024 / 1024).toFixed(1)} MB`;
  }

  function agentDisplayName() {
    const conv = state.conversation;
    const raw = (conv && conv.agent && (conv.agent.name || conv.agent.id)) || AGENT || 'Agent';
    return raw.charAt(0).toUpperCase() + raw.slice(1);
  }

  function humanName() {
    const conv = state.conversation;
    return (conv && conv.creator && conv.creator.name) || 'You';
  }

  function isMine(entry) {
    return entry.direction === 'in';
  }

  function quotedId(entry) {
    const ctx = entry.context;
    if (!ctx) return null;
    return ctx.id || ctx.message_id || null;
  }

  function docKind(name, mime) {
    const ext = (name.split('.').pop() || '').toLowerCase();
    const m = mime || '';
    if (ext === 'pdf' || m === 'application/pdf') return { kind: 'pdf', label: 'PDF' };
    if (/^(doc|docx|odt|rtf)$/.test(ext) || /word/.test(m))
      return { kind: 'doc', label: ext.toUpperCase() || 'DOC' };
    if (/^(xls|xlsx|ods|csv)$/.test(ext) || /sheet|excel/.test(m))
      return { kind: 'sheet', label: ext.toUpperCase() };
    if (/^(ppt|pptx|odp)$/.test(ext) || /presentation|powerpoint/.test(m))
      return { kind: 'slides', label: ext.toUpperCase() };
    if (ext && ext !== name.toLowerCase() && ext.length <= 4)
      return { kind: 'other', label: ext.toUpperCase() };
    return { kind: 'other', label: 'FILE' };
  }

  /** One-line description of a message, for quotes and the reply bar. */
  function snippet(entry) {
    const p = entry.payload || {};
    switch (entry.type) {
      case 'text':
        return plain(p.body || '');
      case 'image':
        return p.caption ? `📷 ${p.caption}` : '📷 Photo';
      case 'video':
        return p.caption ? `🎬 ${p.caption}` : '🎬 Video';
      case 'audio':
        return p.voice ? '🎤 Voice message' : '🎵 Audio';
      case 'document':
        return `📄 ${p.filename || p.caption || 'Document'}`;
      case 'sticker':
        return 'Sticker';
      default:
        return `Message (${entry.type})`;
    }
  }

  // ---------------------------------------------------------------- rich text

  const URL_RE = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;
  const STYLE_RE =
    /(?<![\w*_~`])(```[\s\S]+?```|`[^`\n]+`|\*(?!\s)[^*\n]+?(?<!\s)\*|_(?!\s)[^_\n]+?(?<!\s)_|~(?!\s)[^~\n]+?(?<!\s)~)(?![\w*_~`])/g;

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

  /** The text without its formatting markers, for one-line previews. */
  function plain(text) {
    return text.replace(STYLE_RE, (token) =>
      token.startsWith('```') ? token.slice(3, -3) : token.slice(1, -1),
    );
  }

  function richText(text, into) {
    let last = 0;
    for (const m of text.matchAll(URL_RE)) {
      if (m.index > last) styled(text.slice(last, m.index), into);
      into.append(el('a', { href: m[0], target: '_blank', rel: 'noopener noreferrer', text: m[0] }));
      last = m.index + m[0].length;
    }
    if (last < text.length) styled(text.slice(last), into);
    return into;
  }

  function isJumboEmoji(text) {
    const t = text.trim();
    if (!t || t.length > 16) return false;
    return /^(?:\p{Extended_Pictographic}(?:\uFE0F|\u200D|\p{Emoji_Modifier}|\p{Extended_Pictographic})*\s*){1,3}$/u.test(
      t,
    );
  }

  // ---------------------------------------------------------------- message elements

  function metaElement(row, onMedia) {
    const meta = el('div', { class: onMedia ? 'meta on-media' : 'meta' });
    meta.append(el('time', { datetime: new Date(row.ms).toISOString(), text: timeFormat.format(row.ms) }));
    const ticks = el('span', { class: 'ticks', 'data-testid': 'ticks' });
    meta.append(ticks);
    return meta;
  }

  function updateTicks(rowEl, status) {
    const ticks = rowEl.querySelector('[data-testid="ticks"]');
    if (!ticks || ticks.dataset.status === status) return;
    ticks.dataset.status = status;
    const labels = {
      pending: 'Sending',
      sent: 'Sent',
      delivered: 'Delivered',
      read: 'Read',
      failed: 'Not delivered',
    };
    ticks.setAttribute('role', 'img');
    ticks.setAttribute('aria-label', labels[status] || status);
    ticks.title = labels[status] || status;
    ticks.replaceChildren(tickIcon(status));
  }

  function quoteElement(entry) {
    const id = quotedId(entry);
    if (!id) return null;
    const quoted = state.entriesById.get(id);
    const byYou = quoted
      ? isMine(quoted)
      : String((entry.context && entry.context.from) || '').startsWith('user:');
    const author = byYou ? 'You' : agentDisplayName();
    const quote = el('button', {
      type: 'button',
      class: byYou ? 'quote by-you' : 'quote',
      'data-testid': 'quote',
      'data-quoted-id': id,
      'aria-label': `Quoted message from ${author}. Show it.`,
      onclick: () => flashMessage(id),
    });
    const main = el(
      'div',
      { class: 'quote-main' },
      el('div', { class: 'quote-author', text: author }),
      el('div', {
        class: 'quote-text',
        'data-testid': 'quote-text',
        text: quoted ? snippet(quoted) : 'Original message',
      }),
    );
    quote.append(main);
    if (
      quoted &&
      (quoted.type === 'image' || quoted.type === 'sticker') &&
      quoted.payload &&
      quoted.payload.id
    ) {
      quote.append(el('img', { class: 'quote-thumb', src: mediaUrl(quoted.payload.id), alt: '' }));
    }
    return quote;
  }

  function mediaImage(src, alt, cls) {
    const img = el('img', { class: cls, src, alt, loading: 'lazy', decoding: 'async' });
    img.addEventListener('load', () => keepPinned());
    img.addEventListener('error', () => {
      img.replaceWith(el('div', { class: 'media-missing', text: 'Media unavailable' }));
    });
    if (cls === 'media-img') img.addEventListener('click', () => window.open(src, '_blank', 'noopener'));
    return img;
  }

  function contentFor(row, bubble) {
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
          bubble.append(
            richText(p.caption, el('div', { class: 'caption', 'data-testid': 'message-caption' })),
          );
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
          bubble.append(
            richText(p.caption, el('div', { class: 'caption', 'data-testid': 'message-caption' })),
          );
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
        const name = p.filename || row.fileName || 'Document';
        const kind = docKind(name, p.mime_type);
        const href = p.id ? mediaUrl(p.id) : row.localPreview;
        const chip = el(
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
        bubble.append(chip);
        if (p.caption)
          bubble.append(
            richText(p.caption, el('div', { class: 'caption', 'data-testid': 'message-caption' })),
          );
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

  function buildMessage(row) {
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
        bubble
          .querySelector('.meta')
          .before(
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
          onclick: (ev) => openPicker(entry.id, ev.currentTarget),
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
      if (ev.target.closest('a, button, video, audio')) return;
      startReply(entry);
    });
    // Without hover (phones), a tap on the bubble shows its React / Reply buttons.
    bubble.addEventListener('click', (ev) => {
      if (!NO_HOVER.matches || ev.target.closest('a, button, video, audio, img')) return;
      const open = !rowEl.classList.contains('actions-open');
      closeRowActions();
      rowEl.classList.toggle('actions-open', open);
    });
    return rowEl;
  }

  /** The parts of a message that change in place: ticks, reaction, grouping. */
  function updateMessage(rowEl, row) {
    rowEl.classList.toggle('group-start', row.groupStart);
    updateTicks(rowEl, row.status);
    rowEl.dataset.status = row.status;
    if (!row.pending) rowEl.dataset.read = String(row.status === 'read');

    const bubble = rowEl.querySelector('.bubble');
    const current = bubble.querySelector(':scope > .reaction');
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
        onclick: (ev) => openPicker(row.entry.id, ev.currentTarget),
      });
      if (current) current.replaceWith(pill);
      else bubble.append(pill);
    }
  }

  function buildDay(row) {
    return el(
      'div',
      { class: 'day', 'data-testid': 'day-separator', role: 'separator' },
      el('span', { text: row.label }),
    );
  }

  // ---------------------------------------------------------------- render

  function statusOf(entry) {
    if (isMine(entry)) return entry.markedRead ? 'read' : 'sent';
    return entry.status || 'sent';
  }

  function buildRows() {
    const conv = state.conversation;
    const entries = conv ? [...(conv.entries || [])] : [];
    entries.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));

    const reactions = new Map();
    const visible = [];
    for (const entry of entries) {
      if (entry.type === 'reaction') {
        const r = entry.payload || {};
        if (!r.message_id) continue;
        if (r.emoji) reactions.set(r.message_id, r.emoji);
        else reactions.delete(r.message_id);
      } else {
        visible.push(entry);
      }
    }
    state.reactions = reactions;

    const items = visible.map((entry) => ({
      key: `m:${entry.id}`,
      entry,
      ms: toMillis(entry.timestamp),
      status: statusOf(entry),
      reaction: reactions.get(entry.id) || '',
    }));
    for (const p of state.pending) {
      items.push({
        key: `p:${p.key}`,
        entry: p.entry,
        ms: p.createdAt,
        status: p.failed ? 'failed' : 'pending',
        reaction: '',
        pending: p,
        localPreview: p.previewUrl,
        fileName: p.fileName,
        mime: p.mime,
      });
    }

    const rows = [];
    let lastDay = '';
    let lastAuthor = '';
    for (const item of items) {
      const day = dayKey(item.ms);
      if (day !== lastDay) {
        // Keyed by the message it opens, so that a day seen twice (clock moved back) stays unique.
        rows.push({ kind: 'day', key: `d:${item.key}`, label: dayLabel(item.ms) });
        lastDay = day;
        lastAuthor = '';
      }
      const author = isMine(item.entry) ? 'h' : 'a';
      item.kind = 'msg';
      item.groupStart = author !== lastAuthor || item.entry.type === 'sticker';
      lastAuthor = author;
      rows.push(item);
    }
    return rows;
  }

  function contentSignature(row) {
    if (row.kind === 'day') return `day:${row.label}`;
    const e = row.entry;
    const q = quotedId(e);
    const quoted = q ? state.entriesById.get(q) : null;
    return JSON.stringify([
      e.type,
      e.payload,
      e.timestamp,
      q,
      quoted ? snippet(quoted) : '',
      agentDisplayName(),
      row.pending ? [row.pending.failed, row.pending.uploading, row.pending.error] : null,
    ]);
  }

  function render() {
    const conv = state.conversation;
    state.entriesById = new Map(((conv && conv.entries) || []).map((e) => [e.id, e]));
    // An optimistic bubble goes as soon as the real message is in the conversation.
    state.pending = state.pending.filter((p) => !(p.id && state.entriesById.has(p.id)));

    const rows = buildRows();
    const list = els.list;
    const existing = new Map();
    for (const child of list.children) existing.set(child.dataset.key, child);

    let cursor = list.firstElementChild;
    let added = 0;
    for (const row of rows) {
      const sig = contentSignature(row);
      let node = existing.get(row.key);
      if (node && node.dataset.sig !== sig) {
        if (node === cursor) cursor = cursor.nextElementSibling;
        node.remove();
        node = null;
      } else if (!node) {
        if (row.kind === 'msg' && !row.pending) added += 1;
      }
      if (!node) {
        node = row.kind === 'day' ? buildDay(row) : buildMessage(row);
        node.dataset.key = row.key;
        node.dataset.sig = sig;
      }
      existing.delete(row.key);
      if (row.kind === 'msg') updateMessage(node, row);
      if (node === cursor) cursor = cursor.nextElementSibling;
      else list.insertBefore(node, cursor);
    }
    for (const stale of existing.values()) stale.remove();

    renderHeader();
    const typing = Boolean(conv && conv.typing);
    els.typing.hidden = !typing;

    if (state.stick) {
      scrollToBottom();
    } else if (added > 0 && state.lastCount > 0) {
      state.unseenBelow += added;
    }
    state.lastCount += added;
    renderJump();
    markRead();
    renderTitle();
  }

  function renderHeader() {
    const name = agentDisplayName();
    els.agentName.textContent = name;
    els.avatar.textContent = name.charAt(0);
    const conv = state.conversation;
    if (conv && conv.creator) {
      els.me.hidden = false;
      els.meName.textContent = humanName();
      els.meAvatar.textContent = humanName().charAt(0);
    }
    let stateName;
    let text;
    if (!state.connected) {
      stateName = conv ? 'offline' : 'connecting';
      text = conv ? 'reconnecting…' : 'connecting…';
    } else if (conv && conv.typing) {
      stateName = 'typing';
      text = 'typing…';
    } else {
      stateName = 'online';
      text = 'online';
    }
    if (els.status.dataset.state !== stateName || els.status.textContent !== text) {
      els.status.dataset.state = stateName;
      els.status.textContent = text;
    }
    els.header.dataset.online = String(state.connected);
  }

  function renderTitle() {
    const unread = countUnread();
    document.title = `${unread ? `(${unread}) ` : ''}${agentDisplayName()} · Chat`;
  }

  function renderJump() {
    const show = !state.stick;
    els.jump.hidden = !show;
    els.jumpCount.hidden = !(show && state.unseenBelow > 0);
    els.jumpCount.textContent = String(state.unseenBelow);
  }

  // ---------------------------------------------------------------- scrolling

  function distanceFromBottom() {
    const s = els.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  }

  function scrollToBottom() {
    els.scroller.scrollTop = els.scroller.scrollHeight;
    state.stick = true;
    state.unseenBelow = 0;
  }

  function keepPinned() {
    if (state.stick) els.scroller.scrollTop = els.scroller.scrollHeight;
  }

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

  function flashMessage(id) {
    const node = els.list.querySelector(`[data-testid="message"][data-id="${CSS.escape(id)}"]`);
    if (!node) {
      toast('The original message is not in this chat any more.');
      return;
    }
    node.scrollIntoView({ block: 'center', behavior: 'smooth' });
    const bubble = node.querySelector('.bubble');
    bubble.classList.remove('flash');
    void bubble.offsetWidth;
    bubble.classList.add('flash');
  }

  // ---------------------------------------------------------------- reading

  function countUnread() {
    const conv = state.conversation;
    if (!conv || document.visibilityState === 'visible') return 0;
    return (conv.entries || []).filter(
      (e) =>
        e.direction === 'out' &&
        e.type !== 'reaction' &&
        e.status !== 'read' &&
        !state.readRequested.has(e.id),
    ).length;
  }

  let readTimer = 0;
  function markRead() {
    const conv = state.conversation;
    if (!conv || document.visibilityState !== 'visible') return;
    const now = Date.now();
    let recheck = false;
    for (const entry of conv.entries || []) {
      if (entry.direction !== 'out' || entry.type === 'reaction' || !entry.id) continue;
      const status = entry.status || 'sent';
      if (status === 'read' || status === 'failed' || state.readRequested.has(entry.id)) continue;
      if (!state.firstSeen.has(entry.id)) state.firstSeen.set(entry.id, now);
      // A phone reads what was delivered to it; if the delivery receipt is late, the message
      // still counts as read once it has been on screen for a while.
      const seenFor = now - state.firstSeen.get(entry.id);
      if (status !== 'delivered' && seenFor < READ_SENT_AFTER_MS) {
        recheck = true;
        continue;
      }
      sendRead(entry.id);
    }
    clearTimeout(readTimer);
    if (recheck) readTimer = setTimeout(markRead, READ_SENT_AFTER_MS);
  }

  async function sendRead(id) {
    const attempts = (state.readRequested.get(id) || 0) + 1;
    state.readRequested.set(id, attempts);
    try {
      await postJson('read', { id });
    } catch (err) {
      if (attempts < 3) setTimeout(() => sendRead(id), 1000 * attempts);
      else console.warn('could not mark read', id, err);
    }
  }

  document.addEventListener('visibilitychange', () => {
    markRead();
    renderTitle();
  });

  // ---------------------------------------------------------------- live updates

  let fetching = false;
  let again = false;
  async function refresh() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        const res = await fetch(controlUrl('conversation'), { cache: 'no-store' });
        if (!res.ok) throw new Error(await errorText(res));
        state.conversation = await res.json();
        render();
      } while (again);
    } catch (err) {
      console.warn('conversation fetch failed', err);
      if (!state.conversation) {
        toast(`Cannot load the conversation: ${err.message}`);
        setTimeout(refresh, 3000);
      }
    } finally {
      fetching = false;
    }
  }

  let events = null;
  function connect() {
    events = new EventSource(controlUrl('events'));
    events.addEventListener('open', () => {
      state.connected = true;
      renderHeader();
      refresh();
    });
    events.addEventListener('change', () => refresh());
    events.addEventListener('error', () => {
      state.connected = false;
      renderHeader();
      if (events.readyState === EventSource.CLOSED) {
        events = null;
        setTimeout(connect, 3000);
      }
    });
  }

  // ---------------------------------------------------------------- replying

  function closeRowActions() {
    for (const row of els.list.querySelectorAll('.row.actions-open')) row.classList.remove('actions-open');
  }

  function startReply(entry) {
    closeRowActions();
    state.replyTo = entry;
    const byYou = isMine(entry);
    els.quoteBar.hidden = false;
    els.quoteBar.classList.toggle('by-you', byYou);
    els.quoteBar.dataset.quotedId = entry.id;
    els.quoteBarAuthor.textContent = byYou ? 'You' : agentDisplayName();
    els.quoteBarText.textContent = snippet(entry);
    els.input.focus();
    keepPinned();
  }

  function cancelReply() {
    state.replyTo = null;
    els.quoteBar.hidden = true;
    delete els.quoteBar.dataset.quotedId;
  }

  els.quoteBarCancel.addEventListener('click', () => {
    cancelReply();
    els.input.focus();
  });

  // ---------------------------------------------------------------- reacting

  function openPicker(messageId, anchor) {
    if (state.pickerFor === messageId && !els.picker.hidden) {
      closePicker();
      return;
    }
    state.pickerFor = messageId;
    const current = state.reactions.get(messageId) || '';
    els.picker.replaceChildren(
      ...REACTIONS.map((emoji) =>
        el('button', {
          type: 'button',
          role: 'menuitem',
          'aria-label': emoji === current ? `Remove reaction ${emoji}` : `React with ${emoji}`,
          'aria-pressed': String(emoji === current),
          'data-emoji': emoji,
          text: emoji,
          onclick: () => {
            closePicker();
            closeRowActions();
            react(messageId, emoji === current ? '' : emoji);
          },
        }),
      ),
    );
    els.picker.hidden = false;
    const a = anchor.getBoundingClientRect();
    const p = els.picker.getBoundingClientRect();
    const left = Math.min(Math.max(8, a.left + a.width / 2 - p.width / 2), window.innerWidth - p.width - 8);
    const top = a.top - p.height - 8 > 8 ? a.top - p.height - 8 : a.bottom + 8;
    els.picker.style.left = `${left}px`;
    els.picker.style.top = `${top}px`;
    const first = els.picker.querySelector('button');
    if (first) first.focus({ preventScroll: true });
  }

  function closePicker() {
    els.picker.hidden = true;
    state.pickerFor = null;
  }

  async function react(messageId, emoji) {
    // Show it at once; the conversation refresh that follows confirms it.
    const row = els.list.querySelector(`[data-testid="message"][data-id="${CSS.escape(messageId)}"]`);
    const entry = state.entriesById.get(messageId);
    if (emoji) state.reactions.set(messageId, emoji);
    else state.reactions.delete(messageId);
    if (row && entry) {
      updateMessage(row, {
        entry,
        status: statusOf(entry),
        reaction: emoji,
        groupStart: row.classList.contains('group-start'),
      });
    }
    try {
      await postJson('human', { type: 'reaction', reaction: { message_id: messageId, emoji } });
    } catch (err) {
      toast(`Could not react: ${err.message}`);
      refresh();
    }
  }

  document.addEventListener('mousedown', (ev) => {
    if (
      !els.picker.hidden &&
      !els.picker.contains(ev.target) &&
      !ev.target.closest('[data-testid="react-button"], .reaction')
    ) {
      closePicker();
    }
    if (
      !els.attachMenu.hidden &&
      !els.attachMenu.contains(ev.target) &&
      !els.attachButton.contains(ev.target)
    ) {
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

  window.addEventListener('resize', closePicker);
  els.scroller.addEventListener('scroll', () => {
    if (!els.picker.hidden) closePicker();
  });

  // ---------------------------------------------------------------- attaching

  function openAttachMenu() {
    els.attachMenu.hidden = false;
    els.attachButton.setAttribute('aria-expanded', 'true');
    const first = els.attachMenu.querySelector('button');
    if (first) first.focus();
  }

  function closeAttachMenu() {
    els.attachMenu.hidden = true;
    els.attachButton.setAttribute('aria-expanded', 'false');
  }

  els.attachButton.addEventListener('click', () => {
    if (els.attachMenu.hidden) openAttachMenu();
    else closeAttachMenu();
  });

  els.attachMenu.addEventListener('click', (ev) => {
    const item = ev.target.closest('[data-pick]');
    if (!item) return;
    closeAttachMenu();
    const input = { media: els.fileMedia, document: els.fileDocument, audio: els.fileAudio }[
      item.dataset.pick
    ];
    input.value = '';
    input.click();
  });

  function kindFor(file, picked) {
    if (picked === 'document') return 'document';
    if (picked === 'audio') return 'audio';
    const type = file.type || '';
    if (type.startsWith('image/')) return 'image';
    if (type.startsWith('video/')) return 'video';
    if (type.startsWith('audio/')) return 'audio';
    return 'document';
  }

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

  function clearAttachment() {
    if (!state.attachment) return;
    state.attachment = null;
    els.attachmentBar.hidden = true;
    els.attachmentPreview.replaceChildren();
    els.input.placeholder = 'Type a message';
    els.input.disabled = false;
    updateSendButton();
  }

  els.attachmentCancel.addEventListener('click', () => {
    clearAttachment();
    els.input.focus();
  });

  for (const [input, picked] of [
    [els.fileMedia, 'media'],
    [els.fileDocument, 'document'],
    [els.fileAudio, 'audio'],
  ]) {
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

  // ---------------------------------------------------------------- sending

  let pendingSeq = 0;

  function updateSendButton() {
    els.send.disabled = !(state.attachment || els.input.value.trim());
  }

  function autoGrow() {
    els.input.style.height = 'auto';
    els.input.style.height = `${Math.min(els.input.scrollHeight, 140)}px`;
  }

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
      sendAttachment(attachment, text, replyTo);
    } else {
      sendText(text, replyTo);
    }
    updateSendButton();
    els.input.focus();
  });

  function clearAttachmentBarOnly() {
    els.attachmentBar.hidden = true;
    els.attachmentPreview.replaceChildren();
    els.input.placeholder = 'Type a message';
    els.input.disabled = false;
  }

  function addPending(entry, extra) {
    const p = { key: String(++pendingSeq), entry, createdAt: Date.now(), ...extra };
    state.pending.push(p);
    state.stick = true;
    render();
    return p;
  }

  function settlePending(p, id) {
    p.id = id;
    if (state.entriesById.has(id)) render();
  }

  function failPending(p, err) {
    p.failed = true;
    p.uploading = false;
    p.error = err.message || String(err);
    render();
    toast(`Message not sent: ${p.error}`);
    setTimeout(() => {
      state.pending = state.pending.filter((x) => x !== p);
      render();
    }, 8000);
  }

  async function sendText(text, replyTo) {
    const body = { type: 'text', text: { body: text } };
    if (replyTo) body.context = { id: replyTo.id };
    const p = addPending({ direction: 'in', type: 'text', payload: { body: text }, context: body.context });
    try {
      const result = await postJson('human', body);
      settlePending(p, result.id);
    } catch (err) {
      failPending(p, err);
    }
  }

  async function sendAttachment(attachment, caption, replyTo) {
    const { file, kind, previewUrl } = attachment;
    const object = {};
    if (caption && kind !== 'audio' && kind !== 'sticker') object.caption = caption;
    if (kind === 'document') object.filename = file.name || 'document';
    const context = replyTo ? { id: replyTo.id } : undefined;
    const p = addPending(
      { direction: 'in', type: kind, payload: { ...object }, context },
      { previewUrl, fileName: file.name, mime: file.type, uploading: true },
    );
    try {
      const res = await fetch(controlUrl('media', { filename: file.name || kind }), {
        method: 'POST',
        headers: { 'content-type': file.type || 'application/octet-stream' },
        body: file,
      });
      if (!res.ok) throw new Error(await errorText(res));
      const uploaded = await res.json();
      p.uploading = false;
      p.entry = { ...p.entry, payload: { ...object, id: uploaded.id } };
      render();
      const body = { type: kind, [kind]: { id: uploaded.id, ...object } };
      if (context) body.context = context;
      const result = await postJson('human', body);
      settlePending(p, result.id);
    } catch (err) {
      failPending(p, err);
    }
  }

  // ---------------------------------------------------------------- start

  renderHeader();
  refresh();
  connect();
  els.input.focus();
})();
