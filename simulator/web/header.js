// The chat header and what tells the agent's state: name and avatar of the agent, the human's
// identity, the status line (connecting, reconnecting, online, typing), the typing dots below
// the last message, and the page title with the unread count.
// @ts-check

import { els } from './dom.js';
import { agentDisplayName, humanName } from './entries.js';
import { countUnread } from './read.js';
import { state } from './state.js';

/** Names, avatars and the status line. */
export function renderHeader() {
  const name = agentDisplayName();
  els.agentName.textContent = name;
  els.avatar.textContent = name.charAt(0);
  const conv = state.conversation;
  const me = humanName();
  // The header names the bot; "You are <name>" only when the human has a name of their own.
  els.me.hidden = !me;
  if (me) {
    els.meName.textContent = me;
    els.meAvatar.textContent = me.charAt(0);
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

/** The typing indicator: shown while the agent says it is typing. */
export function renderTyping() {
  const conv = state.conversation;
  const typing = Boolean(conv && conv.typing);
  els.typing.hidden = !typing;
}

/** `(<unread>) <Agent> · Chat`. */
export function renderTitle() {
  const unread = countUnread();
  document.title = `${unread ? `(${unread}) ` : ''}${agentDisplayName()} · Chat`;
}
