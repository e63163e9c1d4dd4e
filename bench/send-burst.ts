/**
 * One burst of the send-budget bench (bench/send-budget.ts): the human writes `burst <n> <tag>
 * <ms>` and the handler requests n sends in two waves; this measures when the service accepted
 * each, against the optimum, what else went on meanwhile (mark-reads, typing, reminders, 429s),
 * and which activities the agent workflow ran for it (from its history: a mark-read rides with
 * the poll activity, so it shows as no activity of its own).
 */
import type { RunningSimulator } from '../simulator';
import type { BenchTemporal } from './latency';
import { waitUntil } from './wait-until';
import { agentEvents } from './message-cost';

/** The figures of one burst. Times in ms; offsets from the moment the sends were requested. */
export interface BurstFigures {
  /** Whether mark-reads, typing and reminders went on during this burst. */
  withStatuses: boolean;
  /** Human wrote `burst …` → handler workflow started (the first wave is requested in its first task). */
  pickupMs: number;
  /** Per send, in the order the service accepted them: accepted − requested. */
  offsetsMs: number[];
  /** Per send: offset − optimum offset. */
  latenessMs: { p50: number; max: number };
  /** Accepted − requested of send number `limit` (the last of the first window). */
  firstWindowOutMs: number;
  /**
   * Achieved ÷ limit after the first window: windowMs ÷ the mean gap between send i and send
   * i − limit, over i ≥ limit (no send can come earlier than windowMs after that one; 1 = optimum).
   */
  sustainedRatio: number;
  /** 429s during the burst, per endpoint. */
  status429: { messages: number; statuses: number; typing: number; updates: number };
  /** Status requests the service answered during the burst (mark-read; typing has its own). */
  statusRequests: { markRead: number; typing: number };
  /** Reminders due during the burst: how many, when each was accepted, and replies accepted after the first. */
  reminders?: { due: number; offsetsMs: number[]; repliesAfterFirst: number };
  /** Activities the agent workflow scheduled during the burst, by type; and its workflow tasks. */
  agentHistory: { activities: Record<string, number>; workflowTasks: number };
  /** Sends accepted (should be `sends`). */
  accepted: number;
}

export interface BurstOptions {
  sends: number;
  windowMs: number;
  limit: number;
  statusEveryMs: number;
  secondWaveAfterMs: number;
  tag: string;
  withStatuses: boolean;
  /** Reminders due during the burst (the `remind` command was written before it). */
  reminders?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number) => Math.round(v);
const bodyOf = (s: { body: unknown }) => (s.body as { text?: { body?: string } }).text?.body ?? '';

export function p50max(values: number[]): { p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(sorted[Math.floor(sorted.length / 2)] ?? NaN), max: round(sorted.at(-1) ?? NaN) };
}

/** The human writes `typing` every `statusEveryMs` until `done()` (each: a mark-read and a typing request). */
async function statusTraffic(
  sim: RunningSimulator,
  agentKey: string,
  o: BurstOptions,
  from: number,
  done: () => boolean,
) {
  const expectedMs = Math.ceil(o.sends / o.limit - 1) * o.windowMs;
  for (let t = o.statusEveryMs / 2; !done() && t < expectedMs + o.windowMs; t += o.statusEveryMs) {
    await sleep(Math.max(0, from + t - Date.now()));
    if (!done()) await sim.control.human({ agent: agentKey, type: 'text', text: { body: 'typing' } });
  }
}

/** What the agent workflow scheduled between `from` and `to`. */
async function historyCounts(temporal: BenchTemporal, agentKey: string, from: number, to: number) {
  const events = await agentEvents(temporal.client, agentKey, from, to);
  const activities: Record<string, number> = {};
  for (const e of events) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) activities[name] = (activities[name] ?? 0) + 1;
  }
  return { activities, workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length };
}

/** What a burst's figures are made of: acceptance times (epoch ms) and the agent's request log. */
export interface BurstObservation {
  wroteAt: number;
  requestedAt: number;
  /** When the service accepted each reply (sorted) and each reminder (sorted). */
  replies: number[];
  reminders: number[];
  /** The agent's requests between `wroteAt` and the last send. */
  log: { endpoint: string | null; status: number }[];
}

/** The figures of a burst, but its history counts. Pure. */
export function burstFigures(o: BurstOptions, seen: BurstObservation): Omit<BurstFigures, 'agentHistory'> {
  const { replies, reminders, requestedAt } = seen;
  const count = (endpoint: string, status?: number) =>
    seen.log.filter(
      (e) => e.endpoint === endpoint && (status === undefined ? e.status < 300 : e.status === status),
    ).length;
  const offsets = replies.map((at) => at - requestedAt);
  const gaps = replies.slice(o.limit).map((at, i) => at - replies[i]);
  return {
    withStatuses: o.withStatuses,
    pickupMs: requestedAt - seen.wroteAt,
    offsetsMs: offsets.map(round),
    latenessMs: p50max(offsets.map((v, i) => v - Math.floor(i / o.limit) * o.windowMs)),
    firstWindowOutMs: round(offsets[Math.min(o.limit, offsets.length) - 1]),
    sustainedRatio: gaps.length
      ? +(o.windowMs / (gaps.reduce((a, b) => a + b, 0) / gaps.length)).toFixed(3)
      : NaN,
    status429: {
      messages: count('messages', 429),
      statuses: count('statuses', 429),
      typing: count('typing', 429),
      updates: count('updates', 429),
    },
    statusRequests: { markRead: count('statuses'), typing: count('typing') },
    ...(o.reminders
      ? {
          reminders: {
            due: o.reminders,
            offsetsMs: reminders.map((at) => round(at - requestedAt)),
            repliesAfterFirst: reminders.length ? replies.filter((at) => at > reminders[0]).length : 0,
          },
        }
      : {}),
    accepted: replies.length,
  };
}

/** Waits for the burst's replies and reminders; their acceptance times, sorted. */
async function acceptedSends(sim: RunningSimulator, agentKey: string, o: BurstOptions, wroteAt: number) {
  // The last send's optimum (reminders included), then two windows and a minute of slack.
  const expectedMs = Math.ceil((o.sends + (o.reminders ?? 0)) / o.limit - 1) * o.windowMs;
  const isReply = (text: string) => text.startsWith(`${o.tag} `);
  const isReminder = (text: string) => text.startsWith(`⏰ ${o.tag} `);
  const sent = await waitUntil(
    `${o.sends} sends of ${o.tag}`,
    async () => {
      const mine = (await sim.control.transcript({ agent: agentKey })).sent.filter(
        (s) => s.realAt >= wroteAt && (isReply(bodyOf(s)) || isReminder(bodyOf(s))),
      );
      return mine.length >= o.sends + (o.reminders ?? 0) && mine;
    },
    expectedMs + 2 * o.windowMs + 60_000,
  );
  const times = (test: (text: string) => boolean) =>
    sent
      .filter((s) => test(bodyOf(s)))
      .map((s) => s.realAt)
      .sort((a, b) => a - b);
  return { replies: times(isReply), reminders: times(isReminder) };
}

/** Runs one burst on `agentKey` and measures it. */
export async function burst(
  temporal: BenchTemporal,
  sim: RunningSimulator,
  agentKey: string,
  o: BurstOptions,
): Promise<{ figures: BurstFigures; lastAt: number }> {
  const wroteAt = Date.now();
  const { id } = await sim.control.humanText(`burst ${o.sends} ${o.tag} ${o.secondWaveAfterMs}`, {
    agent: agentKey,
  });
  let done = false;
  const statuses = o.withStatuses ? statusTraffic(sim, agentKey, o, wroteAt, () => done) : undefined;
  const { replies, reminders } = await acceptedSends(sim, agentKey, o, wroteAt).finally(() => (done = true));
  await statuses;
  const lastAt = Math.max(...replies, ...reminders);
  const requestedAt = await temporal.client.workflow
    .getHandle(`agent:${agentKey}:msg:${id}`)
    .describe()
    .then((d) => d.startTime.getTime())
    .catch(() => wroteAt);
  const log = (await sim.control.log(agentKey)).filter((e) => e.at >= wroteAt && e.at <= lastAt);
  const figures = burstFigures(o, { wroteAt, requestedAt, replies, reminders, log });
  return {
    lastAt,
    figures: { ...figures, agentHistory: await historyCounts(temporal, agentKey, wroteAt, lastAt) },
  };
}
