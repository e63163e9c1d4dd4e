/**
 * The latency breakdown per hop (bench/breakdown.ts) from an agent workflow's history: events
 * shaped as the dev server writes them for an echo (the poll's activity-started event recorded
 * late, after other events, as Temporal does for an activity without retries).
 */
import type { temporal } from '@temporalio/proto';
import { HOPS, breakdownOf } from '../../bench/breakdown';

type Event = temporal.api.history.v1.IHistoryEvent;

const T0 = 1_800_000_000_000;
let nextId = 0;
const at = (ms: number) => ({ seconds: Math.floor((T0 + ms) / 1000), nanos: ((T0 + ms) % 1000) * 1e6 });
const ev = (ms: number, attrs: Partial<Event>): Event => ({
  // Event ids are Longs on the wire; the breakdown reads them with Number().
  eventId: ++nextId as unknown as Event['eventId'],
  eventTime: at(ms) as never,
  ...attrs,
});
const name = (n: string) => ({ activityType: { name: n } });

/** The events of one echo whose message `id` the human wrote at `wrote` ms. */
function echoEvents(wrote: number, id: string, { earlierSend = false } = {}): Event[] {
  const poll = ev(wrote - 1000, { activityTaskScheduledEventAttributes: name('pollUpdates') });
  const pollDone = ev(wrote + 5, {
    activityTaskCompletedEventAttributes: { scheduledEventId: poll.eventId },
  });
  const initiated = ev(wrote + 15, {
    startChildWorkflowExecutionInitiatedEventAttributes: { workflowId: `agent:a:msg:${id}` },
  });
  const nextPoll = ev(wrote + 16, { activityTaskScheduledEventAttributes: name('pollUpdates') });
  const started = ev(wrote + 20, {
    childWorkflowExecutionStartedEventAttributes: { initiatedEventId: initiated.eventId },
  });
  // A send of an earlier message, scheduled while this handler ran.
  const early: Event[] = [];
  if (earlierSend) {
    early.push(ev(wrote + 40, { activityTaskScheduledEventAttributes: name('sendMessage') }));
    early.push(
      ev(wrote + 41, { activityTaskStartedEventAttributes: { scheduledEventId: early[0].eventId } }),
    );
  }
  const completed = ev(wrote + 70, {
    childWorkflowExecutionCompletedEventAttributes: { initiatedEventId: initiated.eventId },
  });
  const send = ev(wrote + 85, { activityTaskScheduledEventAttributes: name('sendMessage') });
  const sendStarted = ev(wrote + 87, {
    activityTaskStartedEventAttributes: { scheduledEventId: send.eventId },
  });
  // Written when the poll completes, long after: not a hop of this message.
  const lateStart = ev(wrote + 16.5, {
    activityTaskStartedEventAttributes: { scheduledEventId: nextPoll.eventId },
  });
  return [poll, pollDone, initiated, nextPoll, started, ...early, completed, send, sendStarted, lateStart];
}

describe('bench/breakdown', () => {
  it('splits each echo into its hops, from the human writing to the service accepting the reply', () => {
    const events = [...echoEvents(0, 'm1'), ...echoEvents(2000, 'm2')];
    const b = breakdownOf(events, 'agent:a', [
      { id: 'm1', at: T0, acceptedAt: T0 + 92 },
      { id: 'm2', at: T0 + 2000, acceptedAt: T0 + 2094 },
    ]);
    expect(b.matched).toBe(2);
    expect(Object.keys(b.steps)).toEqual([...HOPS]);
    const p50 = Object.fromEntries(Object.entries(b.steps).map(([hop, p]) => [hop, p.p50Ms]));
    expect(p50).toEqual({
      'wrote → poll completed': 5,
      'poll completed → child start initiated': 10,
      'child start initiated → child started': 5,
      'child started → handler completed': 50,
      'handler completed → send scheduled': 15,
      'send scheduled → send started': 2,
      'send started → accepted': 7,
    });
    expect(b.steps['send started → accepted']).toMatchObject({ n: 2, maxMs: 7 });
  });

  it('leaves out a message whose reply or handler is not in the history', () => {
    const events = echoEvents(0, 'm1');
    const b = breakdownOf(events, 'agent:a', [
      { id: 'm1', at: T0 }, // no reply accepted
      { id: 'other', at: T0, acceptedAt: T0 + 50 }, // another run's handler
    ]);
    expect(b.matched).toBe(0);
    expect(b.steps['wrote → poll completed'].n).toBe(0);
  });

  it('takes the first send scheduled after the handler completed, not one before', () => {
    const events = echoEvents(0, 'm1', { earlierSend: true });
    const b = breakdownOf(events, 'agent:a', [{ id: 'm1', at: T0, acceptedAt: T0 + 92 }]);
    expect(b.steps['handler completed → send scheduled'].p50Ms).toBe(15);
  });
});
