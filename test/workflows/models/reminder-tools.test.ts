/** The reminder tools' reading of the model's times: clock times, days in the human's zone (pure). */
import { clockTime, dayOf, usesReminders, reminderTools } from '../../../workflows/models/reminder-tools';

describe('reminder tools', () => {
  it('reads clock times the way people and models write them', () => {
    expect(['9', '9:30', '09:30', '9am', '9.30 pm', '12am', '12 pm'].map(clockTime)).toEqual([
      '09:00',
      '09:30',
      '09:30',
      '09:00',
      '21:30',
      '00:00',
      '12:00',
    ]);
    expect(['25', '9:61', '13pm', 'noon', ''].map(clockTime)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('reads days in the human’s zone, where today may already be tomorrow in UTC', () => {
    // 2026-11-27 23:30 UTC is Saturday 00:30 in Berlin.
    const now = Date.UTC(2026, 10, 27, 23, 30);
    expect(dayOf('today', 'UTC', now)).toBe('2026-11-27');
    expect(dayOf('today', 'Europe/Berlin', now)).toBe('2026-11-28');
    expect(dayOf('Tomorrow', 'Europe/Berlin', now)).toBe('2026-11-29');
    expect(dayOf('monday', 'Europe/Berlin', now)).toBe('2026-11-30');
    expect(dayOf('sat', 'Europe/Berlin', now)).toBe('2026-11-28');
    expect(dayOf('2027-01-02', 'UTC', now)).toBe('2027-01-02');
    expect(dayOf('someday', 'UTC', now)).toBeUndefined();
  });

  it('knows a tool set that offers them', () => {
    expect(usesReminders({ ...reminderTools })).toBe(true);
    expect(usesReminders({})).toBe(false);
  });
});
