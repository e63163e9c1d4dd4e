/**
 * Where amsflow's latency goes, hop by hop, from the agent workflow's history (an echo):
 *   human wrote → poll completed (the pollUpdates activity's result is in history)
 *   → handler child start initiated → child started → handler completed (its result carries
 *   the reply: an echo's handler never signals the agent) → sendMessage scheduled → started
 *   → accepted by the service (the simulator's clock).
 * Messages are spaced, so at most one is in flight: the first sendMessage scheduled after its
 * handler completed is its reply. {@link breakdownOf} is pure; {@link historyBreakdown} fetches.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { percentiles, type Percentiles } from './percentiles';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The hops, in order (each one's duration is from the previous hop's end). */
export const HOPS = [
  'wrote → poll completed',
  'poll completed → child start initiated',
  'child start initiated → child started',
  'child started → handler completed',
  'handler completed → send scheduled',
  'send scheduled → send started',
  'send started → accepted',
] as const;

export type Hop = (typeof HOPS)[number];

export interface Breakdown {
  /** Each hop's duration, in ms (p50/p95/p99 over the messages found). */
  steps: Record<Hop, Percentiles>;
  /** Messages whose hops were all found in the current run of the agent workflow. */
  matched: number;
}

/** A message the human wrote: its id, when (epoch ms), and when its reply was accepted. */
export interface WrittenMessage {
  id: string;
  at: number;
  acceptedAt?: number;
}

export const eventMs = (e: HistoryEvent): number => {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;
};

interface Indexed {
  /** Times pollUpdates activities completed, in history order. */
  polls: number[];
  /** Child workflow id → its initiated event (id, time). */
  initiated: Map<string, { id: number; at: number }>;
  /** Initiated event id → child started / completed time. */
  childStarted: Map<number, number>;
  childCompleted: Map<number, { id: number; at: number }>;
  sendScheduled: { id: number; at: number }[];
  /** Scheduled event id → activity started time. */
  activityStarted: Map<number, number>;
}

function indexEvents(events: HistoryEvent[]): Indexed {
  const x: Indexed = {
    polls: [],
    initiated: new Map(),
    childStarted: new Map(),
    childCompleted: new Map(),
    sendScheduled: [],
    activityStarted: new Map(),
  };
  const pollIds = new Set<number>();
  for (const e of events) {
    const id = Number(e.eventId);
    const scheduled = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled === 'sendMessage') x.sendScheduled.push({ id, at: eventMs(e) });
    if (scheduled === 'pollUpdates') pollIds.add(id);
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && pollIds.has(Number(completed.scheduledEventId))) x.polls.push(eventMs(e));
    const started = e.activityTaskStartedEventAttributes;
    if (started) x.activityStarted.set(Number(started.scheduledEventId), eventMs(e));
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowId) x.initiated.set(child.workflowId, { id, at: eventMs(e) });
    const childStarted = e.childWorkflowExecutionStartedEventAttributes;
    if (childStarted) x.childStarted.set(Number(childStarted.initiatedEventId), eventMs(e));
    const childDone = e.childWorkflowExecutionCompletedEventAttributes;
    if (childDone) x.childCompleted.set(Number(childDone.initiatedEventId), { id, at: eventMs(e) });
  }
  return x;
}

/** The hops of one message, or undefined when one of them is not in `x`. */
function hopsOf(x: Indexed, workflowId: string, w: WrittenMessage): number[] | undefined {
  const initiated = x.initiated.get(workflowId);
  if (!initiated || w.acceptedAt === undefined) return undefined;
  const polled = x.polls.filter((t) => t <= initiated.at).at(-1);
  const childStarted = x.childStarted.get(initiated.id);
  const completed = x.childCompleted.get(initiated.id);
  if (polled === undefined || childStarted === undefined || !completed) return undefined;
  const send = x.sendScheduled.find((s) => s.id > completed.id);
  const sendStarted = send && x.activityStarted.get(send.id);
  if (!send || sendStarted === undefined) return undefined;
  const ends = [polled, initiated.at, childStarted, completed.at, send.at, sendStarted, w.acceptedAt];
  return ends.map((end, i) => end - (i === 0 ? w.at : ends[i - 1]));
}

/** The breakdown of `written` (handlers `<agent workflow id>:msg:<message id>`) from `events`. Pure. */
export function breakdownOf(
  events: HistoryEvent[],
  agentWorkflowId: string,
  written: WrittenMessage[],
): Breakdown {
  const x = indexEvents(events);
  const samples = HOPS.map(() => [] as number[]);
  let matched = 0;
  for (const w of written) {
    const hops = hopsOf(x, `${agentWorkflowId}:msg:${w.id}`, w);
    if (!hops) continue;
    matched++;
    hops.forEach((ms, i) => samples[i].push(ms));
  }
  const steps = Object.fromEntries(HOPS.map((hop, i) => [hop, percentiles(samples[i])])) as Record<
    Hop,
    Percentiles
  >;
  return { matched, steps };
}

/** The breakdown of `written` for agent `agentKey`, from its workflow's current run. */
export async function historyBreakdown(
  client: Client,
  agentKey: string,
  written: WrittenMessage[],
): Promise<Breakdown> {
  const workflowId = `agent:${agentKey}`;
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return breakdownOf(history.events ?? [], workflowId, written);
}
