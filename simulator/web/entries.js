// What the web chat reads off conversation entries and people: who wrote a message, the names
// shown for the agent and the human, the quoted id, a message's status, and its one-line snippet.
// @ts-check

import { AGENT } from './api.js';
import { plain } from './rich-text.js';
import { state } from './state.js';

/** @import { Entry } from './state.js' */

/** The agent's name as shown: its name or id (else the page's `?agent=`), capitalised. */
export function agentDisplayName() {
  const conv = state.conversation;
  const raw = (conv && conv.agent && (conv.agent.name || conv.agent.id)) || AGENT || 'Agent';
  return raw.charAt(0).toUpperCase() + raw.slice(1);
}

/**
 * The human's (the agent's creator's) profile name; undefined when there is none, or when it
 * is "You" (`npm start`'s), which would make the header read "You are You".
 * @returns {string | undefined}
 */
export function humanName() {
  const conv = state.conversation;
  const name = conv && conv.creator && conv.creator.name ? conv.creator.name.trim() : '';
  return name && name.toLowerCase() !== 'you' ? name : undefined;
}

/**
 * Whether the human wrote it.
 * @param {Entry} entry
 */
export function isMine(entry) {
  return entry.direction === 'in';
}

/**
 * The id of an entry the simulator has: every entry except the stand-in of a message being sent.
 * @param {Entry} entry
 */
export function serverId(entry) {
  return /** @type {string} */ (entry.id);
}

/**
 * The id of the message this one quotes, or null.
 * @param {Entry} entry
 */
export function quotedId(entry) {
  const ctx = entry.context;
  if (!ctx) return null;
  return ctx.id || ctx.message_id || null;
}

/**
 * The status its ticks show: the human's messages are sent, or read once the agent marked them.
 * @param {Entry} entry
 */
export function statusOf(entry) {
  if (isMine(entry)) return entry.markedRead ? 'read' : 'sent';
  return entry.status || 'sent';
}

/**
 * One-line description of a message, for quotes and the reply bar.
 * @param {Entry} entry
 */
export function snippet(entry) {
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
