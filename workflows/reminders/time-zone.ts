/**
 * The human's own time zone, per agent: `timeZone()` reads it, `setTimeZone(zone)` changes it
 * (from the chat: "my time zone is Europe/Berlin"). It is kept by the agent's reminders workflow
 * (`reminders:<agentKey>`), beside the reminders it moves: a change and the reminders it moves are
 * one signal to one workflow, so no reminder added meanwhile is left in the old zone. Until the
 * human sets one, the zone is the agent's `timeZone` in the agents file, else the worker's
 * `AMSFLOW_TIMEZONE`, else `UTC`. Needs the schedule activities and `remindersWorkflow`, like
 * reminders.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { current } from '../author/conversation-state';
import { canonicalTimeZone, isTimeZone } from '../../core/zoned-time';
import type { Reminder } from '../../protocol/reminders';
import { moveToZone } from './reminder-zone';
import { reminderActivities } from './reminders';

/** The failure type of `setTimeZone` given a zone that is not an IANA zone. */
export const TIME_ZONE_INVALID = 'TimeZoneInvalid';

/** What a change of zone did. */
export interface TimeZoneChange {
  /** The new zone, canonically spelt (`europe/berlin` -> `Europe/Berlin`). */
  timeZone: string;
  /** The pending reminders as they are now (moved to the new zone), soonest first. */
  reminders: Reminder[];
}

/** The human's IANA time zone (see the module). */
export async function timeZone(): Promise<string> {
  return (await reminderActivities.amsflowRemindersRead(current().agentKey)).defaultTimeZone;
}

/**
 * Makes `zone` the human's time zone, for good (across restarts), and moves the pending
 * reminders: a recurring one keeps its clock time in the new zone (every day at 09:00 is 09:00
 * there), a one-shot one set for a clock time keeps that time (at once if it has passed there),
 * one set for an instant (`remindIn`) keeps its instant. Fails with `TimeZoneInvalid` for a zone
 * that is not an IANA zone, and changes nothing.
 */
export async function setTimeZone(zone: string): Promise<TimeZoneChange> {
  if (!isTimeZone(zone)) {
    throw ApplicationFailure.create({
      type: TIME_ZONE_INVALID,
      message: `${JSON.stringify(zone)} is not an IANA time zone (like Europe/Berlin)`,
      nonRetryable: true,
    });
  }
  const canonical = canonicalTimeZone(zone);
  const agentKey = current().agentKey;
  const before = await reminderActivities.amsflowRemindersRead(agentKey);
  await reminderActivities.amsflowRemindersWrite(agentKey, { op: 'zone', timeZone: canonical });
  // What the reminders workflow does with the same pure rule, at about the same time.
  const now = Date.now();
  const reminders = before.reminders
    .map((r) => moveToZone(r, canonical, now))
    .sort((a, b) => a.dueAt - b.dueAt);
  return { timeZone: canonical, reminders };
}
