/**
 * amsflow's reminders as ready tools for a model: `setReminder`, `listReminders`,
 * `cancelReminder` (spread them into a turn's `tools`: `{ ...reminderTools }`). Times are the
 * human's: "remind me tomorrow at 9" is `{ day: 'tomorrow', time: '09:00' }`, read in the human's
 * time zone (`timeZone()`), and a turn with these tools tells the model the human's date, time and
 * zone (the model activity adds them to the system prompt: `clockAt`). They run in workflow code, through the reminders API; a time in the past or a delay that
 * does not parse comes back to the model as the tool's error.
 */
import type { Duration } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import {
  addDays,
  parseWallTime,
  weekdayOf,
  WEEKDAYS,
  zonedDateTime,
  type Weekday,
} from '../../core/zoned-time';
import { formatLocal } from '../reminders/reminder-zone';
import { REMINDER_FAILURE_TYPES } from '../../protocol/reminders';
import {
  cancelSchedule,
  describeReminder,
  listSchedules,
  MAX_REMINDER_TEXT,
  remindAt,
  remindIn,
  scheduleRecurring,
} from '../reminders/reminders';
import { timeZone } from '../reminders/time-zone';
import { tool, type ToolSet } from './tool';

/** `9`, `9:30`, `09:30`, `9am`, `9.30 pm` as `HH:MM`; undefined when it is none of these. */
export function clockTime(text: string): string | undefined {
  const m = /^\s*(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)?\s*$/i.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const pm = m[3]?.toLowerCase() === 'pm';
  if (m[3] && (hour < 1 || hour > 12)) return undefined;
  if (m[3]) hour = (hour % 12) + (pm ? 12 : 0);
  const time = `${String(hour).padStart(2, '0')}:${m[2] ?? '00'}`;
  return parseWallTime(time) ? time : undefined;
}

/** `today`, `tomorrow`, a weekday (the next one, today included) or `YYYY-MM-DD`, as a date in `zone`. */
export function dayOf(day: string, zone: string, now: number): string | undefined {
  const today = zonedDateTime(now, zone);
  const d = day.trim().toLowerCase();
  if (/^\d{4}-\d{2}-\d{2}$/.test(d)) return d;
  let date;
  if (d === 'today') date = addDays(today, 0);
  else if (d === 'tomorrow') date = addDays(today, 1);
  else {
    const wanted = WEEKDAYS.find((w) => d.startsWith(w));
    if (!wanted) return undefined;
    const ahead = (WEEKDAYS.indexOf(wanted) - WEEKDAYS.indexOf(weekdayOf(today)) + 7) % 7;
    date = addDays(today, ahead);
  }
  return formatLocal(date, { hour: 0, minute: 0 }).slice(0, 10);
}

/** What the model is told of a reminder that cannot be set (the tool's error, not the handler's). */
const failure = (message: string) =>
  ApplicationFailure.create({ type: REMINDER_FAILURE_TYPES.invalid, message, nonRetryable: true });

const setReminder = tool({
  description:
    "Remind the human of something later, in their own time zone. Give `in` (a delay: '20 minutes', '2 hours', '3 days'), " +
    "or `time` ('HH:MM') with an optional `day` ('today', 'tomorrow', a weekday or 'YYYY-MM-DD'; default: the next time the clock shows `time`), " +
    "or `time` with `every` ('day' or weekdays like ['mon','thu']) for a reminder that repeats.",
  inputSchema: z.object({
    text: z.string().min(1).max(MAX_REMINDER_TEXT).describe('what to remind the human of'),
    in: z.string().optional(),
    time: z.string().optional(),
    day: z.string().optional(),
    every: z
      .union([z.literal('day'), z.array(z.enum(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']))])
      .optional(),
  }),
  execute: async (input) => {
    if (input.in !== undefined) {
      // The model's delay as written: one that does not parse is the tool's error (InvalidOption).
      const r = await remindIn(input.in as Duration, input.text);
      return { id: r.id, text: r.text, when: describeReminder(r) };
    }
    const time = input.time === undefined ? undefined : clockTime(input.time);
    if (!time) throw failure('Give `in`, or `time` as HH:MM.');
    if (input.every !== undefined) {
      const days = input.every === 'day' ? undefined : (input.every as Weekday[]);
      const r = await scheduleRecurring({ at: time, ...(days ? { days } : {}) }, input.text);
      return { id: r.id, text: r.text, when: describeReminder(r) };
    }
    const day = input.day === undefined ? undefined : dayOf(input.day, await timeZone(), Date.now());
    if (input.day !== undefined && !day)
      throw failure(`"${input.day}" is not today, tomorrow, a weekday or YYYY-MM-DD.`);
    const r = await remindAt(day ? `${day} ${time}` : time, input.text);
    return { id: r.id, text: r.text, when: describeReminder(r) };
  },
});

const listReminders = tool({
  description: "The human's pending reminders, soonest first (with the ids that cancelReminder takes).",
  inputSchema: z.object({}),
  execute: async () =>
    (await listSchedules()).map((r) => ({ id: r.id, text: r.text, when: describeReminder(r) })),
});

const cancelReminder = tool({
  description: 'Cancel one of the pending reminders, by its id (from listReminders).',
  inputSchema: z.object({ id: z.string().min(1) }),
  execute: async ({ id }) => {
    const r = await cancelSchedule(id);
    if (!r) throw failure(`No pending reminder has the id ${JSON.stringify(id)}.`);
    return { cancelled: r.text };
  },
});

/** The reminder tools, by name: `tools: { ...reminderTools, ...yours }`. */
export const reminderTools: ToolSet = { setReminder, listReminders, cancelReminder };

/** True when `tools` offers any of the reminder tools (the turn then tells the model the human's clock). */
export function usesReminders(tools: ToolSet): boolean {
  return Object.values(tools).some((t) => Object.values(reminderTools).includes(t));
}
