/**
 * What one handled message costs Temporal, from histories: workflow tasks, activity tasks and
 * history events of the agent workflow (within a time range) and of each message's handler.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { mapLimited } from '../client/map-limited';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const eventMs = (e: HistoryEvent): number => {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;
};

interface Counts {
  events: number;
  workflowTasks: number;
  activityTasks: number;
}

function count(events: HistoryEvent[]): Counts {
  return {
    events: events.length,
    workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    activityTasks: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
  };
}

export interface MessageCost {
  messages: number;
  /** Per message: the agent workflow's share and the handler's, and their sum. */
  agent: Counts;
  handler: Counts;
  total: Counts;
}

/**
 * Cost per message of `messageIds`, handled by agent `agentKey` between `from` and `to` (epoch
 * ms): the agent workflow's events in that range (all runs), divided by the messages, plus the
 * mean of their handlers' whole histories.
 */
export async function messageCost(
  client: Client,
  agentKey: string,
  messageIds: string[],
  from: number,
  to: number,
): Promise<MessageCost> {
  const agentEvents: HistoryEvent[] = [];
  let runId: string | undefined;
  // The current run, then earlier runs through their continue-as-new links, while in range.
  for (let i = 0; i < 50; i++) {
    const handle = client.workflow.getHandle(`agent:${agentKey}`, runId);
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    agentEvents.push(...events.filter((e) => eventMs(e) >= from && eventMs(e) <= to));
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    runId = started?.continuedExecutionRunId ?? undefined;
    if (!runId || eventMs(events[0]) < from) break;
  }
  const handlers = await mapLimited(messageIds, 8, async (id) =>
    count((await client.workflow.getHandle(`agent:${agentKey}:msg:${id}`).fetchHistory()).events ?? []),
  );
  const n = Math.max(1, messageIds.length);
  const per = (c: Counts): Counts => ({
    events: +(c.events / n).toFixed(1),
    workflowTasks: +(c.workflowTasks / n).toFixed(1),
    activityTasks: +(c.activityTasks / n).toFixed(1),
  });
  const sum = (list: Counts[]): Counts =>
    list.reduce(
      (a, b) => ({
        events: a.events + b.events,
        workflowTasks: a.workflowTasks + b.workflowTasks,
        activityTasks: a.activityTasks + b.activityTasks,
      }),
      { events: 0, workflowTasks: 0, activityTasks: 0 },
    );
  const agent = per(count(agentEvents));
  const handler = per(sum(handlers));
  return {
    messages: messageIds.length,
    agent,
    handler,
    total: per(sum([count(agentEvents), sum(handlers)])),
  };
}
