// Live updates: the `_control/events` stream (Server-Sent Events) and the conversation re-fetch
// it triggers. Fetches never overlap; a change during a fetch fetches once more.
// @ts-check

import { controlUrl, errorMessage, getConversation } from './api.js';
import { renderHeader } from './header.js';
import { render } from './render.js';
import { state } from './state.js';
import { toast } from './toast.js';

let fetching = false;
let again = false;

/** Loads the conversation and renders it; retries every 3 s until the first load succeeds. */
export async function refresh() {
  if (fetching) {
    again = true;
    return;
  }
  fetching = true;
  try {
    do {
      again = false;
      state.conversation = await getConversation();
      render();
    } while (again);
  } catch (err) {
    console.warn('conversation fetch failed', err);
    if (!state.conversation) {
      toast(`Cannot load the conversation: ${errorMessage(err)}`);
      setTimeout(refresh, 3000);
    }
  } finally {
    fetching = false;
  }
}

/** Opens the event stream; while it is down the header says so, and a closed one reopens in 3 s. */
export function connect() {
  const events = new EventSource(controlUrl('events'));
  events.addEventListener('open', () => {
    state.connected = true;
    renderHeader();
    void refresh();
  });
  events.addEventListener('change', () => void refresh());
  events.addEventListener('error', () => {
    state.connected = false;
    renderHeader();
    if (events.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
  });
}
