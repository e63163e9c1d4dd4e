/**
 * A human's change of time zone (workflows/reminders/reminder-zone.ts), without a server: a daily reminder
 * keeps its clock time in the new zone, a one-shot one set for a clock time keeps it (at once if
 * it has passed there), one set for an instant keeps the instant; and the time as the agent tells it.
 */
import type { Reminder } from '../../../protocol/reminders';
import {
  formatClock,
  formatLocal,
  localAt,
  moveToZone,
  parseLocal,
} from '../../../workflows/reminders/reminder-zone';
import { parseTimeZoneCommand } from '../../../workflows/reminders/time-zone-commands';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const base: Reminder = {
  id: 'r1',
  text: 'stand up',
  timeZone: 'UTC',
  dueAt: at('2026-11-26T09:00:00Z'),
  createdAt: at('2026-11-25T10:00:00Z'),
  maxLatenessMs: 86_400_000,
  lateAfterMs: 60_000,
};
const NOW = at('2026-11-25T10:00:00Z');

describe('moving reminders to a new zone', () => {
  it('a daily 09:00 reminder moves to 09:00 in the new zone', () => {
    const daily = { ...base, recurring: { at: '09:00' } };
    const moved = moveToZone(daily, 'Europe/Berlin', NOW);
    expect(moved.timeZone).toBe('Europe/Berlin');
    // 09:00 in Berlin in winter (UTC+1) is 08:00 UTC, the next one after now on 26 Nov.
    expect(iso(moved.dueAt)).toBe('2026-11-26T08:00:00.000Z');
    // Today's 09:00 in Tokyo (00:00 UTC) has passed: tomorrow's.
    expect(iso(moveToZone(daily, 'Asia/Tokyo', NOW).dueAt)).toBe('2026-11-26T00:00:00.000Z');
  });

  it('a weekly reminder keeps its days', () => {
    const weekly = { ...base, recurring: { at: '09:00', days: ['mon' as const] } };
    // Monday 30 Nov 2026, 09:00 in New York (UTC-5).
    expect(iso(moveToZone(weekly, 'America/New_York', NOW).dueAt)).toBe('2026-11-30T14:00:00.000Z');
  });

  it('a one-shot reminder set for a clock time keeps the clock time; at once when it has passed there', () => {
    const oneShot = { ...base, wall: '2026-11-25 12:00', dueAt: at('2026-11-25T12:00:00Z') };
    expect(iso(moveToZone(oneShot, 'America/New_York', NOW).dueAt)).toBe('2026-11-25T17:00:00.000Z');
    // 12:00 in Tokyo was 03:00 UTC: passed, so now.
    expect(moveToZone(oneShot, 'Asia/Tokyo', NOW).dueAt).toBe(NOW);
  });

  it('a one-shot reminder set for an instant ("in 2 hours") keeps its instant', () => {
    const inTwoHours = { ...base, dueAt: NOW + 7_200_000 };
    const moved = moveToZone(inTwoHours, 'Europe/Berlin', NOW);
    expect(moved.dueAt).toBe(NOW + 7_200_000);
    expect(moved.timeZone).toBe('Europe/Berlin');
  });

  it('writes and reads the wall time a one-shot reminder keeps', () => {
    expect(formatLocal({ year: 2026, month: 3, day: 9 }, { hour: 7, minute: 5 })).toBe('2026-03-09 07:05');
    expect(parseLocal('2026-03-09 07:05')).toEqual({
      date: { year: 2026, month: 3, day: 9 },
      time: { hour: 7, minute: 5 },
    });
    expect(parseLocal('2026-03-09 25:00')).toBeUndefined();
    expect(parseLocal('09:00')).toBeUndefined();
    expect(localAt(at('2026-11-25T23:30:00Z'), 'Europe/Berlin')).toBe('2026-11-26 00:30');
  });

  it('tells the time on the human clock', () => {
    expect(formatClock(at('2026-11-25T10:45:00Z'), 'Europe/Berlin')).toBe(
      '11:45 on Wednesday 25 November 2026 (Europe/Berlin)',
    );
  });
});

describe('time-zone commands', () => {
  it('reads "my time zone is <zone>" and "what time is it"', () => {
    expect(parseTimeZoneCommand('my time zone is Europe/Berlin')).toEqual({
      kind: 'set',
      zone: 'Europe/Berlin',
    });
    expect(parseTimeZoneCommand('My timezone is america/new_york.')).toEqual({
      kind: 'set',
      zone: 'america/new_york',
    });
    expect(parseTimeZoneCommand('what time is it?')).toEqual({ kind: 'now' });
    expect(parseTimeZoneCommand('What time is it')).toEqual({ kind: 'now' });
    expect(parseTimeZoneCommand('my time zone is')).toBeUndefined();
    expect(parseTimeZoneCommand('what time is the meeting')).toBeUndefined();
    expect(parseTimeZoneCommand(undefined)).toBeUndefined();
  });
});
