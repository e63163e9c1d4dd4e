/**
 * Reminders: `remindAt`, `remindIn`, `scheduleRecurring`, `listSchedules`, `cancelSchedule`
 * from any workflow that talks as an agent (a handler, or after `useAgent`), and the per-agent
 * `remindersWorkflow` (`reminders:<agentKey>`) that holds them and delivers them.
 *
 * Why one durable workflow per agent and not Temporal Schedules: the time-skipping test server
 * has no Schedules (nor visibility listing), so reminders on Schedules could not be tested with
 * time skipping; a Schedule's catch-up after downtime either fires every missed action within
 * its `catchupWindow` (a burst) or drops them (a window too short to deliver one late); and a
 * Schedule cannot tell the workflow it starts how late it is. Here the next due time is computed
 * with the pure functions of `reminder-time.ts` in the human's zone, the workflow sleeps on a
 * durable timer until it, and after downtime it wakes once: each missed reminder is delivered
 * once, marked "(late by 2 h)", or skipped past its `maxLateness`; a recurring one then moves to
 * its first occurrence after now (no burst). Listing and cancelling read and change one
 * workflow's state, through two activities holding a Temporal client (`activities/schedules.ts`).
 */
import type { Duration } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, proxyActivities, uuid4 } from '@temporalio/workflow';
import { current } from '../author/conversation-state';
import { checkReminderOptions as checkOptionValues } from '../author/api-checks';
import { checkDuration, invalidOption } from '../author/option-checks';
import {
  DEFAULT_TIME_ZONE,
  WEEKDAYS,
  addDays,
  canonicalTimeZone,
  formatInstant,
  formatWallTime,
  instantOf,
  isTimeZone,
  nextOccurrence,
  parseWallTime,
  weekdayName,
  zonedDateTime,
  type Weekday,
} from '../../core/zoned-time';
import { formatLocal } from './reminder-zone';
import {
  MAX_REMINDERS,
  REMINDER_FAILURE_TYPES,
  type RecurringSpec,
  type Reminder,
  type RemindersCommand,
  type RemindersRead,
  type RemindersView,
  type ScheduleActivities,
  type ShownReminder,
} from '../../protocol/reminders';

export type { RecurringSpec, Reminder, RemindersInput, RemindersView } from '../../protocol/reminders';
export { MAX_REMINDERS, REMINDER_FAILURE_TYPES } from '../../protocol/reminders';

/** Options of `remindAt`, `remindIn` and `scheduleRecurring`. */
export interface ReminderOptions {
  /**
   * IANA zone of the human (`Europe/Berlin`): wall times are read in it and due times shown in
   * it. Default: the human's zone ({@link timeZone}: set in the chat, else the agents file's,
   * else the worker's `AMSFLOW_TIMEZONE`, else `UTC`). Kept with the reminder until the human
   * changes zone (`setTimeZone`), which moves it.
   */
  timeZone?: string;
  /**
   * A reminder that fell due while the system was down is delivered once when it is back, unless
   * it is later than this: then it is skipped (a recurring one moves on to its next occurrence).
   * Default `'1 day'`.
   */
  maxLateness?: Duration;
  /** A delivery at least this late says so: `⏰ <text> (late by 2 h)`. Default `'1 minute'`. */
  lateAfter?: Duration;
}

/** Default of {@link ReminderOptions.maxLateness}. */
export const DEFAULT_MAX_LATENESS: Duration = '1 day';
/** Default of {@link ReminderOptions.lateAfter}. */
export const DEFAULT_LATE_AFTER: Duration = '1 minute';
const DEFAULTS = { maxLateness: DEFAULT_MAX_LATENESS, lateAfter: DEFAULT_LATE_AFTER };

/** The longest reminder text (the message adds `⏰ ` and a lateness note; the service takes 4096). */
export const MAX_REMINDER_TEXT = 4000;

const activities = proxyActivities<ScheduleActivities>({
  // A write waits up to 20 s for the reminders workflow to answer.
  startToCloseTimeout: '30 seconds',
  // Both heartbeat while they wait (activities/heartbeats.ts): an attempt lost with its worker (a
  // kill, a partition) is retried after 5 s, not 30 (the cluster chaos run met a handler whose
  // read was lost three times in a row, 100 s before its reply).
  heartbeatTimeout: '5 seconds',
  // Rides out worker kills and server restarts; not registered on any worker (no
  // `createScheduleActivities`), it fails rather than wait forever.
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** The schedule activities, for the other modules of the reminders API (`time-zone.ts`). */
export const reminderActivities = activities;

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: REMINDER_FAILURE_TYPES.invalid, message, nonRetryable: true });
}

function checkText(text: string): string {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (!trimmed) throw invalid('A reminder needs a text');
  if (trimmed.length > MAX_REMINDER_TEXT)
    throw invalid(`A reminder's text is at most ${MAX_REMINDER_TEXT} characters`);
  return trimmed;
}

/** Reads the agent's reminders (and the worker's zone): one activity. */
async function read(): Promise<RemindersRead> {
  return activities.amsflowRemindersRead(current().agentKey);
}

async function write(command: RemindersCommand): Promise<void> {
  try {
    await activities.amsflowRemindersWrite(current().agentKey, command);
  } catch (err) {
    // Its own failure (not "activity failed"): the reminders workflow does not run.
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === REMINDER_FAILURE_TYPES.unavailable) throw cause;
    throw err;
  }
}

/** The zone a new reminder uses, checked; reads the agent's reminders too (for their count). */
async function prepare(options: ReminderOptions): Promise<{ timeZone: string; now: number }> {
  if (options.timeZone !== undefined && !isTimeZone(options.timeZone)) {
    throw invalid(`${JSON.stringify(options.timeZone)} is not an IANA time zone (like Europe/Berlin)`);
  }
  const state = await read();
  if (state.reminders.length >= MAX_REMINDERS) {
    throw ApplicationFailure.create({
      type: REMINDER_FAILURE_TYPES.tooMany,
      message: `${state.reminders.length} reminders are pending already (at most ${MAX_REMINDERS})`,
      nonRetryable: true,
    });
  }
  const timeZone = options.timeZone ?? state.defaultTimeZone;
  return {
    timeZone: canonicalTimeZone(isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE),
    now: Date.now(),
  };
}

async function add(
  text: string,
  timeZone: string,
  dueAt: number,
  checked: { maxLatenessMs: number; lateAfterMs: number },
  recurring?: RecurringSpec,
  wall?: string,
): Promise<Reminder> {
  const reminder: Reminder = {
    id: uuid4(),
    text,
    timeZone,
    dueAt,
    ...(recurring ? { recurring } : {}),
    ...(wall ? { wall } : {}),
    createdAt: Date.now(),
    ...checked,
  };
  await write({ op: 'add', reminder });
  return reminder;
}

const LOCAL_DATE_TIME = /^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}:\d{2})\s*$/;

/**
 * Reminds the human of `text` once, at `when`: an instant (`Date` or epoch ms), `'HH:MM'` (the
 * next time the human's clock reads it), or `'YYYY-MM-DD HH:MM'` (a wall time in the human's
 * zone; DST gaps and overlaps as in `reminder-time.ts`). Resolves to the reminder (its `dueAt`
 * and `timeZone` for a confirmation: {@link describeReminder}). Fails with `ReminderInvalid`
 * (a time in the past, an empty text, an unknown zone) or `TooManyReminders`.
 */
export async function remindAt(
  when: Date | number | string,
  text: string,
  options: ReminderOptions = {},
): Promise<Reminder> {
  const checked = checkOptionValues('remindAt', options, DEFAULTS);
  const body = checkText(text);
  if (!(typeof when === 'number' || typeof when === 'string' || when instanceof Date)) {
    throw invalidOption('remindAt', 'when', when, "a Date, epoch ms, 'HH:MM' or 'YYYY-MM-DD HH:MM'");
  }
  const { timeZone, now } = await prepare(options);
  let dueAt: number;
  // A wall time is kept with the reminder: a change of zone keeps it (reminder-zone.ts).
  let wall: string | undefined;
  if (typeof when === 'number' || when instanceof Date) {
    dueAt = typeof when === 'number' ? when : when.getTime();
  } else {
    const local = LOCAL_DATE_TIME.exec(when);
    const time = parseWallTime(local ? local[4] : when);
    if (!time) throw invalid(`${JSON.stringify(when)} is neither HH:MM nor YYYY-MM-DD HH:MM`);
    if (local) {
      const date = { year: Number(local[1]), month: Number(local[2]), day: Number(local[3]) };
      const check = addDays(date, 0);
      if (check.month !== date.month || check.day !== date.day)
        throw invalid(`${JSON.stringify(when)} is not a date`);
      dueAt = instantOf(date, time, timeZone);
      wall = formatLocal(date, time);
    } else {
      dueAt = nextOccurrence(now, time, timeZone);
      wall = formatLocal(zonedDateTime(dueAt, timeZone), time);
    }
  }
  if (!Number.isFinite(dueAt)) throw invalid('The due time is not a time');
  if (dueAt < now) throw invalid(`${formatInstant(dueAt, timeZone, now)} is in the past`);
  return add(body, timeZone, dueAt, checked, undefined, wall);
}

/** Reminds the human of `text` once, `delay` from now (`'10 minutes'`, `'3 days'`, ms). See {@link remindAt}. */
export async function remindIn(
  delay: Duration,
  text: string,
  options: ReminderOptions = {},
): Promise<Reminder> {
  const checked = checkOptionValues('remindIn', options, DEFAULTS);
  const ms = checkDuration('remindIn', 'delay', delay ?? null)!;
  const body = checkText(text);
  const { timeZone, now } = await prepare(options);
  return add(body, timeZone, now + ms, checked);
}

/**
 * Reminds the human of `text` at `spec.at` (`HH:MM` in the human's zone) every day, or every
 * week on `spec.days` (`['mon', 'thu']`), until cancelled. DST changes keep the wall time (a time
 * in the spring-forward gap fires when the gap ends; in the fall-back overlap, once, at the
 * first). After downtime the missed occurrences give one delivery at most (marked late, or
 * skipped past `maxLateness`), never a burst. Resolves to the reminder (`dueAt`: its next time).
 */
export async function scheduleRecurring(
  spec: RecurringSpec,
  text: string,
  options: ReminderOptions = {},
): Promise<Reminder> {
  const checked = checkOptionValues('scheduleRecurring', options, DEFAULTS);
  const body = checkText(text);
  const time = parseWallTime(spec?.at ?? '');
  if (!time) throw invalid(`${JSON.stringify(spec?.at)} is not a time (HH:MM)`);
  let days: Weekday[] | undefined;
  if (spec.days !== undefined) {
    if (!Array.isArray(spec.days)) throw invalid(`days: use a non-empty list of ${WEEKDAYS.join(', ')}`);
    const unknown = spec.days.filter((d) => !WEEKDAYS.includes(d));
    if (unknown.length > 0 || spec.days.length === 0) {
      throw invalid(`days: use a non-empty list of ${WEEKDAYS.join(', ')}`);
    }
    days = WEEKDAYS.filter((d) => spec.days!.includes(d));
  }
  const { timeZone, now } = await prepare(options);
  const recurring: RecurringSpec = { at: formatWallTime(time), ...(days && days.length < 7 ? { days } : {}) };
  return add(body, timeZone, nextOccurrence(now, time, timeZone, recurring.days), checked, recurring);
}

/** The agent's pending reminders (one-shot and recurring), soonest first. */
export async function listSchedules(): Promise<Reminder[]> {
  return (await read()).reminders;
}

/** Cancels reminder `id`; resolves to it when it was pending, undefined when it was not. */
export async function cancelSchedule(id: string): Promise<Reminder | undefined> {
  if (typeof id !== 'string' || id === '') throw invalidOption('cancelSchedule', 'id', id, 'a reminder id');
  const found = (await read()).reminders.find((r) => r.id === id);
  if (found) await write({ op: 'cancel', id });
  return found;
}

/** The reminders and the list the human was last shown (for numbered commands). */
export async function readReminders(): Promise<RemindersView> {
  return read();
}

/** Records the list the human was shown, so that "cancel reminder <n>" means its n-th entry. */
export async function rememberShown(list: ShownReminder[]): Promise<void> {
  await write({ op: 'shown', list: list.slice(0, MAX_REMINDERS) });
}

function joinWords(words: string[]): string {
  return words.length < 2
    ? words.join('')
    : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * When a reminder fires, as the human reads it: `14:30 (Europe/Berlin) on Tue 24 Nov`, or
 * `every Sunday at 09:00 (Europe/Berlin), next on Sun 29 Nov`.
 */
export function describeReminder(reminder: Reminder, now: number = Date.now()): string {
  const when = formatInstant(reminder.dueAt, reminder.timeZone, now);
  if (!reminder.recurring) return when;
  const days = reminder.recurring.days;
  const every = days ? joinWords(days.map((d) => weekdayName(d))) : 'day';
  const next = when.slice(when.indexOf(' on ') + 1);
  return `every ${every} at ${reminder.recurring.at} (${reminder.timeZone}), next ${next}`;
}

export { reminderProblem, remindersWorkflow } from './reminders-workflow';
