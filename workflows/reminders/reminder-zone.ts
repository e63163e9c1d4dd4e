/**
 * A human who changes time zone (pure): what their pending reminders become, and how the agent
 * tells them the time. A reminder keeps what the human asked for:
 * - a recurring one ("every day at 09:00") fires at 09:00 on the new zone's clock, from now on;
 * - a one-shot one set for a wall time ("at 09:00", "2026-12-24 18:00") fires when the new
 *   zone's clock reads that date and time; if that moment has already passed, at once;
 * - a one-shot one set for an instant ("in 2 hours", an epoch time) keeps its instant.
 * Every one is shown in the new zone afterwards.
 */
import {
  formatWallTime,
  instantOf,
  nextOccurrence,
  parseWallTime,
  weekdayName,
  zonedDateTime,
  type LocalDate,
  type WallTime,
} from '../../core/zoned-time';
import type { Reminder } from '../../protocol/reminders';

const LOCAL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM`: how a one-shot reminder keeps the wall time it was set for. */
export function formatLocal(date: LocalDate, time: WallTime): string {
  return `${date.year}-${pad(date.month)}-${pad(date.day)} ${formatWallTime(time)}`;
}

/** The date and wall time of {@link formatLocal}'s text; undefined when it is not one. */
export function parseLocal(text: string | undefined): { date: LocalDate; time: WallTime } | undefined {
  const m = LOCAL.exec(text ?? '');
  if (!m) return undefined;
  const time = parseWallTime(`${m[4]}:${m[5]}`);
  if (!time) return undefined;
  return { date: { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, time };
}

/** The wall time (`YYYY-MM-DD HH:MM`) that `instant` is on `timeZone`'s clock. */
export function localAt(instant: number, timeZone: string): string {
  const z = zonedDateTime(instant, timeZone);
  return formatLocal(z, z);
}

/** `reminder` once its human has moved to `timeZone` at `now` (see the module's rules). */
export function moveToZone(reminder: Reminder, timeZone: string, now: number): Reminder {
  if (reminder.recurring) {
    const time = parseWallTime(reminder.recurring.at);
    if (!time) return { ...reminder, timeZone };
    return { ...reminder, timeZone, dueAt: nextOccurrence(now, time, timeZone, reminder.recurring.days) };
  }
  const wall = parseLocal(reminder.wall);
  if (!wall) return { ...reminder, timeZone };
  return { ...reminder, timeZone, dueAt: Math.max(now, instantOf(wall.date, wall.time, timeZone)) };
}

/** The time as the agent tells it: `11:45 on Wednesday 25 November 2026 (Europe/Berlin)`. */
export function formatClock(instant: number, timeZone: string): string {
  const z = zonedDateTime(instant, timeZone);
  const day = weekdayName(z.weekday);
  return `${formatWallTime(z)} on ${day} ${z.day} ${MONTHS[z.month - 1]} ${z.year} (${timeZone})`;
}
