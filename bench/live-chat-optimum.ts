/**
 * Live chat's poll scheduling problem (issue 41, point 3), written down and simulated. Pure.
 *
 * The traffic (the bench's live chat): the human writes `messages` times, one every `cadenceMs`,
 * and each message asks for `repliesPerMessage` replies. The service, as the spec has it: one
 * numbered stream of entries per agent, the human's messages and every send's receipts (entries
 * `receiptsAfterMs` after the send: 'sent', 'delivered', 'read'); GET /updates at most `pollLimit`
 * starts in any `windowMs`, one open at a time, returning at once when entries wait past its
 * offset, else at the first entry to come, else after `longPollMs` with nothing; POST /messages at
 * most `sendLimit` in any `windowMs`, one at a time, each taking `sendMs`. The client cannot know
 * when the human will write. A message's pick-up: its arrival → the return of the poll that reads
 * it. Network and handler times are 0 here: what is left is the poll budget's share.
 *
 * Two clients:
 * - `independent`: the poller and the outbox work apart, as amsflow's do. A poll is opened again
 *   as soon as one returns (window permitting); a reply goes as soon as the send window allows.
 *   Every send's receipts then wake the open poll: a reply costs about three polls, the budget
 *   runs out, and messages wait for it.
 * - `grouped`: one client coordinates both. It sends only right after a poll returned, while no
 *   poll is open, `groupSize` replies at a time (when the send window has room for them all),
 *   opens its next poll once the group's last receipt is due, so that one poll reads them all,
 *   and otherwise waits on an open poll for the human. Groups of 3: the 12 sends a minute cost 4
 *   polls, and 10 messages + 4 ≤ 15.
 *
 * Pick-up is at least 0, so a client whose pick-up p95 is X shows that the best any client could
 * get is between 0 and X.
 */
import { SlidingWindow } from '../core/sliding-window';
import { percentiles, type Percentiles } from './percentiles';

export interface ChatModel {
  messages: number;
  cadenceMs: number;
  repliesPerMessage: number;
  windowMs: number;
  pollLimit: number;
  sendLimit: number;
  longPollMs: number;
  receiptsAfterMs: readonly number[];
  sendMs: number;
}

/** The bench's live chat at the spec's limits (bench/live-chat.ts, its full run). */
export const BENCH_LIVE_CHAT: ChatModel = {
  messages: 24,
  cadenceMs: 6000,
  repliesPerMessage: 2,
  windowMs: 60_000,
  pollLimit: 15,
  sendLimit: 12,
  longPollMs: 25_000,
  receiptsAfterMs: [0, 50, 150],
  sendMs: 0,
};

export type ChatClient = { kind: 'independent' } | { kind: 'grouped'; groupSize: number };

export interface ChatOutcome {
  pickup: Percentiles;
  /** Every poll's and send's start (ms from the first message). */
  polls: number[];
  sends: number[];
  /** The most starts in any window (never above the limits). */
  mostPollsInWindow: number;
  mostSendsInWindow: number;
}

interface Entry {
  at: number;
  /** The message's index; absent: a receipt. */
  message?: number;
  read: boolean;
}

/** The most of `starts` (sorted) in any window. */
function mostInWindow(starts: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i] - starts[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** Simulates `client` on `model`'s traffic; deterministic. */
export function simulateLiveChat(model: ChatModel, client: ChatClient): ChatOutcome {
  const entries: Entry[] = Array.from({ length: model.messages }, (_, i) => ({
    at: i * model.cadenceMs,
    message: i,
    read: false,
  }));
  const add = (at: number) => {
    let i = entries.length;
    while (i > 0 && entries[i - 1].at > at) i--;
    entries.splice(i, 0, { at, read: false });
  };
  const pickups: number[] = [];
  const polls: number[] = [];
  const sends: number[] = [];
  // The windows' queries come at times that never go back, as SlidingWindow's pruning needs.
  const pollWindow = new SlidingWindow(model.pollLimit, model.windowMs);
  const sendWindow = new SlidingWindow(model.sendLimit, model.windowMs);
  const allowedAt = (window: SlidingWindow, at: number) => at + window.delay(at);
  const lastReceipt = Math.max(...model.receiptsAfterMs);
  let backlog = 0;
  let sendFreeAt = 0;
  let open: number | undefined;
  let pollWantedAt = 0;
  let t = 0;

  const send = (at: number) => {
    sends.push(at);
    sendWindow.record(at);
    for (const after of model.receiptsAfterMs) add(at + after);
    sendFreeAt = at + model.sendMs;
    backlog--;
  };
  const returnAt = (start: number) => {
    const first = entries.find((e) => !e.read);
    if (!first) return start + model.longPollMs;
    return Math.min(Math.max(start, first.at), start + model.longPollMs);
  };
  const done = () => pickups.length === model.messages && backlog === 0;

  for (let steps = 0; !done(); steps++) {
    if (steps > 100_000) throw new Error('live chat model: no end');
    const nextOpen = open === undefined ? allowedAt(pollWindow, Math.max(t, pollWantedAt)) : Infinity;
    const sendFrom = Math.max(t, sendFreeAt);
    const nextSend =
      client.kind === 'independent' && backlog > 0 ? allowedAt(sendWindow, sendFrom) : Infinity;
    const nextReturn = open === undefined ? Infinity : returnAt(open);
    t = Math.min(nextOpen, nextSend, nextReturn);
    if (t === nextOpen) {
      open = t;
      polls.push(t);
      pollWindow.record(t);
    } else if (t === nextSend) {
      send(t);
    } else {
      open = undefined;
      for (const e of entries) {
        if (e.at > t || e.read) continue;
        e.read = true;
        if (e.message !== undefined) {
          pickups.push(t - e.at);
          backlog += model.repliesPerMessage;
        }
      }
      pollWantedAt = t;
      if (client.kind === 'grouped') pollWantedAt = sendGroup(t);
    }
  }

  /** The grouped client's sends after a return at `at`; returns when its next poll may open. */
  function sendGroup(at: number): number {
    if (client.kind !== 'grouped') return at;
    const allRead = pickups.length === model.messages;
    const size = Math.min(backlog, client.groupSize);
    if (size === 0 || (size < client.groupSize && !allRead)) return at;
    if (sendWindow.room(at) < size) return at;
    let now = at;
    for (let k = 0; k < size; k++) {
      send(now);
      now += model.sendMs;
    }
    return now - model.sendMs + lastReceipt;
  }

  return {
    pickup: percentiles(pickups),
    polls,
    sends,
    mostPollsInWindow: mostInWindow(polls, model.windowMs),
    mostSendsInWindow: mostInWindow(sends, model.windowMs),
  };
}

/** The bench's run as a model: its messages, cadence and window (the long poll scaled with it). */
export function benchChatModel(run: { messages: number; cadenceMs: number; windowMs: number }): ChatModel {
  const scale = run.windowMs / BENCH_LIVE_CHAT.windowMs;
  return {
    ...BENCH_LIVE_CHAT,
    messages: run.messages,
    cadenceMs: run.cadenceMs,
    windowMs: run.windowMs,
    longPollMs: BENCH_LIVE_CHAT.longPollMs * scale,
  };
}

/** What the bench prints beside amsflow's pick-up: the two clients' p95 on the run's traffic. */
export function pollBudgetBound(run: { messages: number; cadenceMs: number; windowMs: number }): {
  groupedP95Ms: number;
  independentP95Ms: number;
} {
  const model = benchChatModel(run);
  return {
    groupedP95Ms: simulateLiveChat(model, { kind: 'grouped', groupSize: 3 }).pickup.p95Ms,
    independentP95Ms: simulateLiveChat(model, { kind: 'independent' }).pickup.p95Ms,
  };
}
