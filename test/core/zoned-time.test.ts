/**
 * Wall-clock time in a zone (core/zoned-time.ts), without a server: offsets, the DST
 * gap and overlap rules, daily and weekly occurrences across the 2026/2027 changes of
 * Europe/Berlin, America/New_York and Australia/Lord_Howe (a 30-minute change), checked against
 * hand-computed instants and against a minute-by-minute scan of the zone's clock.
 */
import {
  addDays,
  canonicalTimeZone,
  formatInstant,
  formatLateness,
  instantOf,
  isTimeZone,
  nextOccurrence,
  offsetMinutes,
  parseWallTime,
  weekdayOf,
  zonedDateTime,
  type Weekday,
  type WallTime,
} from '../../core/zoned-time';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const LORD_HOWE = 'Australia/Lord_Howe';

describe('zones and offsets', () => {
  it('knows IANA names and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone(undefined)).toBe(false);
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('America/New_York')).toBe('America/New_York');
  });

  it('reads the wall clock and calendar of a zone', () => {
    expect(zonedDateTime(at('2026-11-24T13:30:05Z'), BERLIN)).toEqual({
      year: 2026,
      month: 11,
      day: 24,
      hour: 14,
      minute: 30,
      second: 5,
      weekday: 'tue',
    });
    expect(zonedDateTime(at('2026-12-31T23:30:00Z'), BERLIN)).toMatchObject({ year: 2027, month: 1, day: 1 });
    expect(zonedDateTime(at('2027-01-01T04:59:59Z'), NEW_YORK)).toMatchObject({ year: 2026, hour: 23 });
    expect(zonedDateTime(at('2027-01-01T05:00:00Z'), NEW_YORK)).toMatchObject({ year: 2027, hour: 0 });
  });

  it('gives the offset in force, DST or not', () => {
    expect(offsetMinutes(at('2027-01-15T12:00Z'), BERLIN)).toBe(60);
    expect(offsetMinutes(at('2027-07-15T12:00Z'), BERLIN)).toBe(120);
    expect(offsetMinutes(at('2027-01-15T12:00Z'), NEW_YORK)).toBe(-300);
    expect(offsetMinutes(at('2027-07-15T12:00Z'), NEW_YORK)).toBe(-240);
    expect(offsetMinutes(at('2027-07-15T12:00Z'), LORD_HOWE)).toBe(630);
    expect(offsetMinutes(at('2027-01-15T12:00Z'), LORD_HOWE)).toBe(660);
    expect(offsetMinutes(at('2027-01-15T12:00Z'), 'Asia/Kathmandu')).toBe(345);
    expect(offsetMinutes(at('2027-01-15T12:00Z'), 'UTC')).toBe(0);
    // The changes themselves, to the second.
    expect(offsetMinutes(at('2027-03-28T00:59:59Z'), BERLIN)).toBe(60);
    expect(offsetMinutes(at('2027-03-28T01:00:00Z'), BERLIN)).toBe(120);
    expect(offsetMinutes(at('2027-10-31T00:59:59Z'), BERLIN)).toBe(120);
    expect(offsetMinutes(at('2027-10-31T01:00:00Z'), BERLIN)).toBe(60);
    expect(offsetMinutes(at('2027-03-14T06:59:59Z'), NEW_YORK)).toBe(-300);
    expect(offsetMinutes(at('2027-03-14T07:00:00Z'), NEW_YORK)).toBe(-240);
  });

  it('does calendar arithmetic on dates', () => {
    expect(weekdayOf({ year: 2027, month: 3, day: 28 })).toBe('sun');
    expect(weekdayOf({ year: 2026, month: 11, day: 24 })).toBe('tue');
    expect(addDays({ year: 2026, month: 12, day: 31 }, 1)).toEqual({ year: 2027, month: 1, day: 1 });
    expect(addDays({ year: 2028, month: 3, day: 1 }, -1)).toEqual({ year: 2028, month: 2, day: 29 });
  });
});

describe('instantOf: a wall time on a date', () => {
  const on = (zone: string, date: string, time: string) => {
    const [year, month, day] = date.split('-').map(Number);
    return iso(instantOf({ year, month, day }, parseWallTime(time)!, zone));
  };

  it('maps ordinary times with the offset of the day', () => {
    expect(on(BERLIN, '2027-03-27', '02:30')).toBe('2027-03-27T01:30:00.000Z');
    expect(on(BERLIN, '2027-07-01', '09:00')).toBe('2027-07-01T07:00:00.000Z');
    expect(on(NEW_YORK, '2027-01-10', '00:00')).toBe('2027-01-10T05:00:00.000Z');
    expect(on('Asia/Kathmandu', '2027-01-10', '06:00')).toBe('2027-01-10T00:15:00.000Z');
  });

  it('spring-forward gap: the first instant after the gap', () => {
    // Berlin 2027-03-28: 02:00 CET -> 03:00 CEST (01:00 UTC).
    expect(on(BERLIN, '2027-03-28', '02:00')).toBe('2027-03-28T01:00:00.000Z');
    expect(on(BERLIN, '2027-03-28', '02:30')).toBe('2027-03-28T01:00:00.000Z');
    expect(on(BERLIN, '2027-03-28', '02:59')).toBe('2027-03-28T01:00:00.000Z');
    expect(on(BERLIN, '2027-03-28', '03:00')).toBe('2027-03-28T01:00:00.000Z');
    expect(on(BERLIN, '2027-03-28', '01:59')).toBe('2027-03-28T00:59:00.000Z');
    expect(on(BERLIN, '2027-03-28', '03:01')).toBe('2027-03-28T01:01:00.000Z');
    // New York 2027-03-14: 02:00 EST -> 03:00 EDT (07:00 UTC).
    expect(on(NEW_YORK, '2027-03-14', '02:30')).toBe('2027-03-14T07:00:00.000Z');
    expect(on(NEW_YORK, '2027-03-14', '03:30')).toBe('2027-03-14T07:30:00.000Z');
    // Lord Howe 2027-10-03: 02:00 -> 02:30 (+10:30 -> +11).
    expect(on(LORD_HOWE, '2027-10-03', '02:15')).toBe('2027-10-02T15:30:00.000Z');
  });

  it('fall-back overlap: the first of the two', () => {
    // Berlin 2027-10-31: 03:00 CEST -> 02:00 CET; 02:00-02:59 happen twice.
    expect(on(BERLIN, '2027-10-31', '02:00')).toBe('2027-10-31T00:00:00.000Z');
    expect(on(BERLIN, '2027-10-31', '02:30')).toBe('2027-10-31T00:30:00.000Z');
    expect(on(BERLIN, '2027-10-31', '03:00')).toBe('2027-10-31T02:00:00.000Z');
    expect(on(BERLIN, '2027-10-31', '01:59')).toBe('2027-10-30T23:59:00.000Z');
    // New York 2027-11-07: 02:00 EDT -> 01:00 EST; 01:00-01:59 happen twice.
    expect(on(NEW_YORK, '2027-11-07', '01:30')).toBe('2027-11-07T05:30:00.000Z');
    expect(on(NEW_YORK, '2027-11-07', '02:00')).toBe('2027-11-07T07:00:00.000Z');
    // New York 2026-11-01 (the last change before these tests were written).
    expect(on(NEW_YORK, '2026-11-01', '01:15')).toBe('2026-11-01T05:15:00.000Z');
    // Lord Howe 2027-04-04: 02:00 -> 01:30; 01:30-01:59 happen twice.
    expect(on(LORD_HOWE, '2027-04-04', '01:45')).toBe('2027-04-03T14:45:00.000Z');
  });
});

describe('nextOccurrence: daily and weekly', () => {
  const chain = (zone: string, from: string, time: string, count: number, days?: Weekday[]) => {
    const out: string[] = [];
    let t = at(from);
    for (let i = 0; i < count; i++) {
      t = nextOccurrence(t, parseWallTime(time)!, zone, days);
      out.push(iso(t));
    }
    return out;
  };

  it('is strictly after the instant', () => {
    expect(iso(nextOccurrence(at('2026-11-24T13:30:00Z'), { hour: 14, minute: 30 }, BERLIN))).toBe(
      '2026-11-25T13:30:00.000Z',
    );
    expect(iso(nextOccurrence(at('2026-11-24T13:29:59.999Z'), { hour: 14, minute: 30 }, BERLIN))).toBe(
      '2026-11-24T13:30:00.000Z',
    );
    expect(iso(nextOccurrence(at('2026-11-24T23:30:00Z'), { hour: 0, minute: 15 }, BERLIN))).toBe(
      '2026-11-25T23:15:00.000Z',
    );
  });

  it('daily 09:00 in Berlin keeps 09:00 local across both changes', () => {
    expect(chain(BERLIN, '2027-03-26T12:00Z', '09:00', 3)).toEqual([
      '2027-03-27T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
    ]);
    expect(chain(BERLIN, '2027-10-29T12:00Z', '09:00', 3)).toEqual([
      '2027-10-30T07:00:00.000Z',
      '2027-10-31T08:00:00.000Z',
      '2027-11-01T08:00:00.000Z',
    ]);
  });

  it('daily 02:30 in Berlin: the gap day fires at 03:00, the overlap day once', () => {
    expect(chain(BERLIN, '2027-03-26T12:00Z', '02:30', 3)).toEqual([
      '2027-03-27T01:30:00.000Z',
      '2027-03-28T01:00:00.000Z',
      '2027-03-29T00:30:00.000Z',
    ]);
    expect(chain(BERLIN, '2027-10-29T12:00Z', '02:30', 3)).toEqual([
      '2027-10-30T00:30:00.000Z',
      '2027-10-31T00:30:00.000Z',
      '2027-11-01T01:30:00.000Z',
    ]);
  });

  it('weekly on Sunday 09:00 in Berlin across both changes of 2027', () => {
    expect(chain(BERLIN, '2027-03-15T00:00Z', '09:00', 3, ['sun'])).toEqual([
      '2027-03-21T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
      '2027-04-04T07:00:00.000Z',
    ]);
    expect(chain(BERLIN, '2027-10-18T00:00Z', '09:00', 3, ['sun'])).toEqual([
      '2027-10-24T07:00:00.000Z',
      '2027-10-31T08:00:00.000Z',
      '2027-11-07T08:00:00.000Z',
    ]);
  });

  it('weekly on Monday 08:30 in New York across both changes of 2027', () => {
    expect(chain(NEW_YORK, '2027-03-02T00:00Z', '08:30', 3, ['mon'])).toEqual([
      '2027-03-08T13:30:00.000Z',
      '2027-03-15T12:30:00.000Z',
      '2027-03-22T12:30:00.000Z',
    ]);
    expect(chain(NEW_YORK, '2027-10-26T00:00Z', '08:30', 3, ['mon'])).toEqual([
      '2027-11-01T12:30:00.000Z',
      '2027-11-08T13:30:00.000Z',
      '2027-11-15T13:30:00.000Z',
    ]);
  });

  it('several weekdays, in order', () => {
    expect(chain(NEW_YORK, '2026-11-23T00:00Z', '18:00', 4, ['fri', 'mon', 'wed'])).toEqual([
      '2026-11-23T23:00:00.000Z',
      '2026-11-25T23:00:00.000Z',
      '2026-11-27T23:00:00.000Z',
      '2026-11-30T23:00:00.000Z',
    ]);
    expect(() => nextOccurrence(0, { hour: 1, minute: 0 }, 'UTC', [])).toThrow(RangeError);
  });

  /**
   * The reference: scan the zone's clock minute by minute; a date's occurrence is the first
   * minute of that date whose clock reads `time` or later (nothing else is derived).
   */
  function scan(after: number, time: WallTime, zone: string, days?: Weekday[]): number {
    const target = time.hour * 60 + time.minute;
    const done = new Set<string>();
    // Start two days early, to know which dates already had their occurrence.
    for (let t = Math.floor(after / 60_000) * 60_000 - 2 * 86_400_000; ; t += 60_000) {
      const z = zonedDateTime(t, zone);
      const key = `${z.year}-${z.month}-${z.day}`;
      if (done.has(key) || z.hour * 60 + z.minute < target) continue;
      done.add(key);
      if (days && !days.includes(z.weekday)) continue;
      if (t > after) return t;
    }
  }

  it.each([
    [BERLIN, '2027-03-27T10:17:00Z', '02:30', undefined],
    [BERLIN, '2027-03-27T23:59:00Z', '02:00', undefined],
    [BERLIN, '2027-10-30T21:00:00Z', '02:15', undefined],
    [BERLIN, '2027-10-31T00:45:00Z', '02:15', undefined],
    [BERLIN, '2027-03-22T00:00:00Z', '09:00', ['sun'] as Weekday[]],
    [NEW_YORK, '2027-03-13T21:00:00Z', '02:05', undefined],
    [NEW_YORK, '2027-11-06T22:00:00Z', '01:30', undefined],
    [NEW_YORK, '2027-11-01T00:00:00Z', '01:00', ['sun'] as Weekday[]],
    [LORD_HOWE, '2027-10-02T10:00:00Z', '02:10', undefined],
    [LORD_HOWE, '2027-04-03T10:00:00Z', '01:40', undefined],
    ['Asia/Kathmandu', '2026-12-01T00:00:00Z', '23:59', ['thu'] as Weekday[]],
    ['UTC', '2026-11-24T23:59:30Z', '00:00', undefined],
  ])('agrees with a scan of the clock: %s after %s at %s (%j)', (zone, from, time, days) => {
    const wall = parseWallTime(time)!;
    expect(iso(nextOccurrence(at(from), wall, zone, days))).toBe(iso(scan(at(from), wall, zone, days)));
  });

  it('agrees with the scan for a year of daily 02:30 in Berlin and 01:30 in New York', () => {
    for (const [zone, time] of [
      [BERLIN, '02:30'],
      [NEW_YORK, '01:30'],
    ] as const) {
      const wall = parseWallTime(time)!;
      let t = at('2026-12-01T00:00:00Z');
      const seenDates = new Set<string>();
      for (let i = 0; i < 366; i++) {
        const next = nextOccurrence(t, wall, zone);
        const z = zonedDateTime(next, zone);
        const date = `${z.year}-${z.month}-${z.day}`;
        // Once a day, every day, at the time (or at the end of the gap on the spring day).
        expect(seenDates.has(date)).toBe(false);
        seenDates.add(date);
        if (z.hour !== wall.hour || z.minute !== wall.minute) {
          expect(z.hour * 60 + z.minute).toBeGreaterThan(wall.hour * 60 + wall.minute);
          expect(offsetMinutes(next - 1000, zone)).toBeLessThan(offsetMinutes(next, zone));
        }
        t = next;
      }
      expect(seenDates.size).toBe(366);
    }
  });
});

describe('what reminders show', () => {
  it('formats an instant in the zone, with seconds and year only when needed', () => {
    const now = at('2026-11-23T22:00:00Z');
    expect(formatInstant(at('2026-11-24T13:30:00Z'), BERLIN, now)).toBe(
      '14:30 (Europe/Berlin) on Tue 24 Nov',
    );
    expect(formatInstant(at('2026-11-24T13:30:07Z'), BERLIN, now)).toBe(
      '14:30:07 (Europe/Berlin) on Tue 24 Nov',
    );
    expect(formatInstant(at('2027-03-28T07:00:00Z'), BERLIN, now)).toBe(
      '09:00 (Europe/Berlin) on Sun 28 Mar 2027',
    );
    expect(formatInstant(at('2026-11-24T04:05:00Z'), NEW_YORK)).toBe(
      '23:05 (America/New_York) on Mon 23 Nov',
    );
  });

  it('formats lateness in the largest fitting unit', () => {
    expect(formatLateness(0)).toBe('0 s');
    expect(formatLateness(45_000)).toBe('45 s');
    expect(formatLateness(12 * 60_000)).toBe('12 min');
    expect(formatLateness(2 * 3_600_000)).toBe('2 h');
    expect(formatLateness(2 * 3_600_000 + 10 * 60_000)).toBe('2 h');
    expect(formatLateness(3 * 86_400_000)).toBe('3 days');
  });

  it('parses HH:MM', () => {
    expect(parseWallTime('14:30')).toEqual({ hour: 14, minute: 30 });
    expect(parseWallTime('9:05')).toEqual({ hour: 9, minute: 5 });
    expect(parseWallTime('09.05')).toEqual({ hour: 9, minute: 5 });
    expect(parseWallTime('24:00')).toBeUndefined();
    expect(parseWallTime('12:60')).toBeUndefined();
    expect(parseWallTime('noon')).toBeUndefined();
  });
});
