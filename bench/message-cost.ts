/**
 * What handled messages cost Temporal, counted from histories: history events, workflow tasks,
 * activity tasks, timers, signals, child workflows, and billable actions (Temporal Cloud's unit:
 * a workflow started (child and continue-as-new included), an activity scheduled or retried, a
 * timer started, a signal sent (by a workflow or a client), an update accepted, a marker, a
 * search-attribute upsert; activity heartbeats are billed too but are not in histories, so they
 * are left out here and reported apart).
 *
 * The agent workflow's share is its events within a time range (all runs, through their
 * continue-as-new links); other workflows (handlers, approvals, reminders) count whole.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { mapLimited } from '../core/map-limited';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface Counts {
  events: number;
  workflowTasks: number;
  activityTasks: number;
  timers: number;
  signals: number;
  childWorkflows: number;
  actions: number;
}

const ZERO: Counts = {
  events: 0,
  workflowTasks: 0,
  activityTasks: 0,
  timers: 0,
  signals: 0,
  childWorkflows: 0,
  actions: 0,
};

const eventMs = (e: HistoryEvent): number => {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;
};

/** A signal from a client (not from a workflow's command, which is counted where it was sent). */
function clientSignal(e: HistoryEvent): boolean {
  const a = e.workflowExecutionSignaledEventAttributes;
  return !!a && !a.externalWorkflowExecution;
}

/** The counts of `events`, one history's or a slice of one. Pure. */
export function countEvents(events: HistoryEvent[]): Counts {
  const has = (pick: (e: HistoryEvent) => unknown) => events.filter((e) => !!pick(e)).length;
  const started = has((e) => e.workflowExecutionStartedEventAttributes);
  const activities = has((e) => e.activityTaskScheduledEventAttributes);
  const retries = events.filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1).length;
  const timers = has((e) => e.timerStartedEventAttributes);
  const sentSignals = has((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes);
  const clientSignals = events.filter(clientSignal).length;
  const updates = has((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  const markers = has((e) => e.markerRecordedEventAttributes);
  const upserts = has((e) => e.upsertWorkflowSearchAttributesEventAttributes);
  return {
    events: events.length,
    workflowTasks: has((e) => e.workflowTaskCompletedEventAttributes),
    activityTasks: activities,
    timers,
    signals: sentSignals + clientSignals,
    childWorkflows: has((e) => e.startChildWorkflowExecutionInitiatedEventAttributes),
    actions:
      started + activities + retries + timers + sentSignals + clientSignals + updates + markers + upserts,
  };
}

export function addCounts(list: Counts[]): Counts {
  const total = { ...ZERO };
  for (const c of list) for (const k of Object.keys(total) as (keyof Counts)[]) total[k] += c[k];
  return total;
}

/** `c` divided by `n`, to one decimal. */
export function perUnit(c: Counts, n: number): Counts {
  const out = { ...ZERO };
  for (const k of Object.keys(out) as (keyof Counts)[]) out[k] = +(c[k] / Math.max(1, n)).toFixed(1);
  return out;
}

/** The agent workflow's events between `from` and `to` (epoch ms), over all its runs. */
export async function agentEvents(
  client: Client,
  agentKey: string,
  from: number,
  to: number,
): Promise<HistoryEvent[]> {
  const out: HistoryEvent[] = [];
  let runId: string | undefined;
  // The current run, then earlier runs through their continue-as-new links, while in range.
  for (let i = 0; i < 50; i++) {
    const history = await client.workflow.getHandle(`agent:${agentKey}`, runId).fetchHistory();
    const events = history.events ?? [];
    out.push(...events.filter((e) => eventMs(e) >= from && eventMs(e) <= to));
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId || eventMs(events[0]) < from) break;
  }
  return out;
}

/** The whole histories of `workflowIds`, counted one by one. */
export async function workflowCounts(client: Client, workflowIds: string[]): Promise<Counts[]> {
  return mapLimited(workflowIds, 8, async (id) =>
    countEvents((await client.workflow.getHandle(id).fetchHistory()).events ?? []),
  );
}
