/**
 * The reminder commands' parser and texts (workflows/reminders/reminder-commands.ts), without a server.
 */
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import {
  REMINDERS_FAILED_TEXT,
  REMINDER_COMMANDS,
  formatReminderList,
  parseReminderCommand,
  reminderFailureAnswer,
} from '../../../workflows/reminders/reminder-commands';
import { describeReminder, reminderProblem } from '../../../workflows/reminders/reminders';
import type { Reminder } from '../../../protocol/reminders';

describe('parseReminderCommand', () => {
  it('remind me in <n> <unit>: second, minute, hour, day, singular or plural', () => {
    expect(parseReminderCommand('remind me in 10 minutes to stretch')).toEqual({
      kind: 'in',
      amount: 10,
      unit: 'minute',
      ms: 600_000,
      text: 'stretch',
    });
    expect(parseReminderCommand('remind me in 1 second to blink')).toMatchObject({ ms: 1000, text: 'blink' });
    expect(parseReminderCommand('remind me in 30 seconds to blink')).toMatchObject({ ms: 30_000 });
    expect(parseReminderCommand('remind me in 1 minute to x')).toMatchObject({ ms: 60_000 });
    expect(parseReminderCommand('remind me in 2 hours to x')).toMatchObject({ ms: 7_200_000 });
    expect(parseReminderCommand('remind me in 1 hour to x')).toMatchObject({ ms: 3_600_000 });
    expect(parseReminderCommand('remind me in 1 day to x')).toMatchObject({ ms: 86_400_000 });
    expect(parseReminderCommand('remind me in 3 days to call mom')).toMatchObject({
      ms: 3 * 86_400_000,
      text: 'call mom',
    });
    expect(parseReminderCommand('Remind Me IN an hour TO Water The Plants')).toMatchObject({
      ms: 3_600_000,
      text: 'Water The Plants',
    });
    expect(parseReminderCommand('/remind me in 5 minutes to go to the shop to buy milk')).toMatchObject({
      ms: 300_000,
      text: 'go to the shop to buy milk',
    });
  });

  it('remind me at <HH:MM>', () => {
    expect(parseReminderCommand('remind me at 14:30 to call Ada')).toEqual({
      kind: 'at',
      time: { hour: 14, minute: 30 },
      text: 'call Ada',
    });
    expect(parseReminderCommand('remind me at 9:05 to x')).toMatchObject({ time: { hour: 9, minute: 5 } });
    expect(parseReminderCommand('remind me at 25:00 to x')).toEqual({
      kind: 'invalid',
      problem: '"25:00" is not a time: use HH:MM, 24-hour clock (like 14:30).',
    });
    expect(parseReminderCommand('remind me at noon to x')).toMatchObject({ kind: 'invalid' });
  });

  it('remind me every day / every <weekday> at <HH:MM>', () => {
    expect(parseReminderCommand('remind me every day at 08:00 to stretch')).toEqual({
      kind: 'every',
      time: { hour: 8, minute: 0 },
      text: 'stretch',
    });
    expect(parseReminderCommand('remind me every Sunday at 09:00 to water the plants')).toEqual({
      kind: 'every',
      time: { hour: 9, minute: 0 },
      days: ['sun'],
      text: 'water the plants',
    });
    expect(parseReminderCommand('remind me every mondays at 7:45 to x')).toMatchObject({ days: ['mon'] });
    expect(parseReminderCommand('remind me every fortnight at 7:45 to x')).toMatchObject({ kind: 'invalid' });
    expect(parseReminderCommand('remind me every day at 7 to x')).toMatchObject({ kind: 'invalid' });
  });

  it('a reminder command that does not parse is answered with the usage', () => {
    expect(parseReminderCommand('remind me tomorrow')).toMatchObject({
      kind: 'invalid',
      problem: expect.stringContaining('remind me in 10 minutes to <text>'),
    });
    expect(parseReminderCommand('remind me in 0 minutes to x')).toMatchObject({ kind: 'invalid' });
    expect(parseReminderCommand('remind me in 100000 days to x')).toMatchObject({ kind: 'invalid' });
    expect(parseReminderCommand('remind me in 5 weeks to x')).toMatchObject({ kind: 'invalid' });
    expect(parseReminderCommand('remind me in 5 minutes')).toMatchObject({ kind: 'invalid' });
  });

  it('reminders and cancel reminder <n>', () => {
    expect(parseReminderCommand('reminders')).toEqual({ kind: 'list' });
    expect(parseReminderCommand(' /Reminders ')).toEqual({ kind: 'list' });
    expect(parseReminderCommand('list reminders')).toEqual({ kind: 'list' });
    expect(parseReminderCommand('cancel reminder 2')).toEqual({ kind: 'cancel', n: 2 });
    expect(parseReminderCommand('Cancel Reminder 12')).toEqual({ kind: 'cancel', n: 12 });
    expect(parseReminderCommand('cancel reminder two')).toMatchObject({ kind: 'invalid' });
    expect(parseReminderCommand('cancel reminder 0')).toMatchObject({ kind: 'invalid' });
  });

  it('leaves every other message alone', () => {
    for (const text of [
      undefined,
      '',
      'echo remind me',
      'cancel',
      'reminder',
      'remindme in 1 day to x',
      'signup',
    ]) {
      expect(parseReminderCommand(text)).toBeUndefined();
    }
  });

  it('lists its commands for the help text', () => {
    expect(REMINDER_COMMANDS.map((c) => c.command)).toEqual([
      'remind me in <n> <unit> to <text>',
      'remind me at <HH:MM> to <text>',
      'remind me every day at <HH:MM> to <text>',
      'reminders',
      'cancel reminder <n>',
    ]);
  });
});

describe('what the human reads', () => {
  const now = Date.parse('2026-11-23T22:00:00Z');
  const base = { createdAt: now, maxLatenessMs: 86_400_000, lateAfterMs: 60_000 };
  const once: Reminder = {
    ...base,
    id: 'a',
    text: 'call mom',
    timeZone: 'Europe/Berlin',
    dueAt: Date.parse('2026-11-24T13:30:00Z'),
  };
  const daily: Reminder = {
    ...base,
    id: 'b',
    text: 'stretch',
    timeZone: 'Europe/Berlin',
    dueAt: Date.parse('2026-11-24T07:00:00Z'),
    recurring: { at: '08:00' },
  };
  const weekly: Reminder = {
    ...base,
    id: 'c',
    text: 'water the plants',
    timeZone: 'America/New_York',
    dueAt: Date.parse('2026-11-29T14:00:00Z'),
    recurring: { at: '09:00', days: ['sun'] },
  };
  const several: Reminder = { ...weekly, id: 'd', recurring: { at: '09:00', days: ['mon', 'wed', 'fri'] } };

  it('describes when a reminder fires', () => {
    expect(describeReminder(once, now)).toBe('14:30 (Europe/Berlin) on Tue 24 Nov');
    expect(describeReminder(daily, now)).toBe('every day at 08:00 (Europe/Berlin), next on Tue 24 Nov');
    expect(describeReminder(weekly, now)).toBe(
      'every Sunday at 09:00 (America/New_York), next on Sun 29 Nov',
    );
    expect(describeReminder(several, now)).toBe(
      'every Monday, Wednesday and Friday at 09:00 (America/New_York), next on Sun 29 Nov',
    );
  });

  it('numbers the list, or says there is none', () => {
    expect(formatReminderList([], now)).toBe('No reminders.');
    expect(formatReminderList([daily, once], now)).toBe(
      [
        'Your reminders:',
        '1. every day at 08:00 (Europe/Berlin), next on Tue 24 Nov: stretch',
        '2. 14:30 (Europe/Berlin) on Tue 24 Nov: call mom',
        'Write cancel reminder <n> to cancel one.',
      ].join('\n'),
    );
  });
});

describe('reminderProblem: what the reminders workflow refuses to keep', () => {
  const good: Reminder = {
    id: 'a',
    text: 'x',
    timeZone: 'UTC',
    dueAt: 1,
    createdAt: 0,
    maxLatenessMs: 1,
    lateAfterMs: 1,
  };
  it('keeps a well-formed reminder, one-shot or recurring', () => {
    expect(reminderProblem(good)).toBeUndefined();
    expect(reminderProblem({ ...good, recurring: { at: '09:00', days: ['mon'] } })).toBeUndefined();
  });
  it('refuses what would fail the workflow later', () => {
    expect(reminderProblem(undefined)).toBe('not a reminder');
    expect(reminderProblem({ ...good, timeZone: 'Mars/Olympus' })).toBe('a: unknown time zone');
    expect(reminderProblem({ ...good, dueAt: NaN })).toBe('a: dueAt is not a number');
    expect(reminderProblem({ ...good, recurring: { at: '9am' } })).toBe('a: recurring.at is not HH:MM');
    expect(reminderProblem({ ...good, recurring: { at: '09:00', days: [] } })).toMatch(/days/);
    expect(reminderProblem({ ...good, recurring: { at: '09:00', days: ['funday' as never] } })).toMatch(
      /days/,
    );
  });
});

describe('reminderFailureAnswer: what the human hears when a reminder command failed', () => {
  const failure = (type: string) => ApplicationFailure.create({ type, message: 'at 09:00 is in the past' });

  it("explains the human's own mistakes, and the handler goes on", () => {
    expect(reminderFailureAnswer(failure('ReminderInvalid'))).toEqual({
      text: 'at 09:00 is in the past.',
      rethrow: false,
    });
    expect(reminderFailureAnswer(failure('TooManyReminders'))).toMatchObject({ rethrow: false });
  });

  it("apologises for a failure on amsflow's side, and the handler fails after it (never silence)", () => {
    const outOfRetries = new ActivityFailure(
      'activity failed',
      'amsflowRemindersWrite',
      '1',
      RetryState.TIMEOUT,
      undefined,
    );
    for (const err of [failure('RemindersUnavailable'), outOfRetries, new Error('bug')]) {
      expect(reminderFailureAnswer(err)).toEqual({ text: REMINDERS_FAILED_TEXT, rethrow: true });
    }
  });
});
