/**
 * Wall-clock time in a human's time zone (pure): the next "HH:MM" in zone Z after an instant,
 * daily and weekly occurrences across DST changes, and how reminders show times and lateness.
 * Built on `Intl.DateTimeFormat` with an explicit IANA zone (never the host's zone), which the
 * workflow sandbox provides; every function is a pure function of its arguments, so workflow
 * code may call it. (The results depend on the time zone data of the Node.js that runs it: a
 * worker upgraded to new zone rules computes new occurrences by the new rules.)
 *
 * DST rules, for a wall time W on a given local date:
 * - **Gap** (spring forward: W does not exist that day, e.g. 02:30 in Berlin on the last Sunday
 *   of March): the first instant after the gap, i.e. the moment the clocks jump (03:00 local).
 * - **Overlap** (fall back: W happens twice, e.g. 02:30 in Berlin on the last Sunday of
 *   October): the first of the two. A daily or weekly reminder fires once that day.
 * Both are one rule: the first instant at which the local clock reads W or later on that date.
 */

/** A day of the week, as reminders spell it. */
export type Weekday = 'sun' | 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat';

/** The days of the week in `Date.getUTCDay()` order (Sunday first). */
export const WEEKDAYS: readonly Weekday[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A wall-clock time of day. */
export interface WallTime {
  hour: number;
  minute: number;
}

/** A calendar date (month 1–12). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** What a zone's wall clock and calendar show at an instant. */
export interface ZonedDateTime extends LocalDate, WallTime {
  second: number;
  weekday: Weekday;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The zone every reminder uses when none is given and the worker sets none. */
export const DEFAULT_TIME_ZONE = 'UTC';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** True when `timeZone` is an IANA zone name this runtime knows (e.g. `Europe/Berlin`, `UTC`). */
export function isTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || timeZone.trim() === '') return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The canonical spelling of a known zone (`europe/berlin` → `Europe/Berlin`); `zone` itself when unknown. */
export function canonicalTimeZone(timeZone: string): string {
  return isTimeZone(timeZone) ? formatter(timeZone).resolvedOptions().timeZone : timeZone;
}

/** The weekday of a calendar date. */
export function weekdayOf(date: LocalDate): Weekday {
  return WEEKDAYS[new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()];
}

/** The calendar date `days` days after `date` (negative: before). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** What the wall clock and calendar of `timeZone` show at `instant` (epoch ms). */
export function zonedDateTime(instant: number, timeZone: string): ZonedDateTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const date = { year: parts.year, month: parts.month, day: parts.day };
  return {
    ...date,
    // Some runtimes print midnight as 24 even with h23.
    hour: parts.hour % 24,
    minute: parts.minute,
    second: parts.second,
    weekday: weekdayOf(date),
  };
}

/** The wall clock at `instant` read as if it were UTC, in ms (seconds precision). */
function wallNumber(instant: number, timeZone: string): number {
  const z = zonedDateTime(instant, timeZone);
  return Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second);
}

/** The zone's offset from UTC at `instant`, in minutes (Berlin in winter: 60). */
export function offsetMinutes(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / SECOND) * SECOND;
  return Math.round((wallNumber(whole, timeZone) - whole) / MINUTE);
}

/**
 * The instant (epoch ms) at which `timeZone`'s clock reads `time` on `date`; on a DST change,
 * the first instant at which it reads `time` or later (see the module's rules: a time in the
 * spring-forward gap gives the end of the gap, a time in the fall-back overlap its first
 * occurrence).
 */
export function instantOf(date: LocalDate, time: WallTime, timeZone: string): number {
  const target = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute);
  const offsets = [...new Set([target - DAY, target, target + DAY].map((t) => offsetMinutes(t, timeZone)))];
  const exact = offsets
    .map((offset) => target - offset * MINUTE)
    .filter((t) => wallNumber(t, timeZone) === target)
    .sort((a, b) => a - b);
  if (exact.length > 0) return exact[0];
  // In a gap: the clock jumps from before `target` to after it somewhere in [lo, hi].
  let lo = target - Math.max(...offsets) * MINUTE;
  let hi = target - Math.min(...offsets) * MINUTE;
  if (wallNumber(hi, timeZone) < target || wallNumber(lo, timeZone) >= target) {
    return target - offsetMinutes(target, timeZone) * MINUTE;
  }
  // The first second whose wall clock reads `target` or later (offsets change on whole seconds).
  lo /= SECOND;
  hi /= SECOND;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallNumber(mid * SECOND, timeZone) >= target) hi = mid;
    else lo = mid;
  }
  return hi * SECOND;
}

/**
 * The first instant strictly after `after` at which `timeZone`'s clock reads `time`, on any
 * day, or only on the given weekdays (`days`, non-empty). DST changes follow the module's rules.
 */
export function nextOccurrence(
  after: number,
  time: WallTime,
  timeZone: string,
  days?: readonly Weekday[],
): number {
  if (days && days.length === 0) throw new RangeError('nextOccurrence: days is empty');
  const { year, month, day } = zonedDateTime(after, timeZone);
  // A day before too: a zone that moved its date line can put yesterday's time after `after`.
  for (let i = -1; i <= 15; i++) {
    const date = addDays({ year, month, day }, i);
    if (days && !days.includes(weekdayOf(date))) continue;
    const at = instantOf(date, time, timeZone);
    if (at > after) return at;
  }
  throw new RangeError(`nextOccurrence: no ${formatWallTime(time)} in ${timeZone} within two weeks`);
}

/** `HH:MM` (24-hour clock, `9:05` allowed) as a wall time; undefined when it is not one. */
export function parseWallTime(text: string): WallTime | undefined {
  const m = /^\s*(\d{1,2})[:.](\d{2})\s*$/.exec(text);
  if (!m) return undefined;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  if (hour > 23 || minute > 59) return undefined;
  return { hour, minute };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `HH:MM`. */
export function formatWallTime(time: WallTime): string {
  return `${pad(time.hour)}:${pad(time.minute)}`;
}

/** "Monday", or "Sun" with `short`. */
export function weekdayName(day: Weekday, short = false): string {
  const name = WEEKDAY_NAMES[WEEKDAYS.indexOf(day)];
  return short ? name.slice(0, 3) : name;
}

/**
 * How reminders show an instant: `14:30 (Europe/Berlin) on Tue 24 Nov` (seconds when they are
 * not zero; the year when it is not the year of `now` in that zone).
 */
export function formatInstant(instant: number, timeZone: string, now?: number): string {
  const z = zonedDateTime(instant, timeZone);
  const time = `${formatWallTime(z)}${z.second ? `:${pad(z.second)}` : ''}`;
  const year = now !== undefined && zonedDateTime(now, timeZone).year !== z.year ? ` ${z.year}` : '';
  return `${time} (${timeZone}) on ${weekdayName(z.weekday, true)} ${z.day} ${MONTH_NAMES[z.month - 1]}${year}`;
}

/** A lateness (or any duration) as reminders say it: `45 s`, `12 min`, `2 h`, `3 days`. */
export function formatLateness(ms: number): string {
  const abs = Math.max(0, ms);
  if (abs < 90 * SECOND) return `${Math.round(abs / SECOND)} s`;
  if (abs < 90 * MINUTE) return `${Math.round(abs / MINUTE)} min`;
  if (abs < 36 * HOUR) return `${Math.round(abs / HOUR)} h`;
  return `${Math.round(abs / DAY)} days`;
}
