/**
 * The reminder commands of the reference bot, for any bot to reuse:
 *   remind me in <n> <unit> to <text>     (second, minute, hour, day; singular or plural)
 *   remind me at <HH:MM> to <text>        (the next time the human's clock reads it)
 *   remind me every day at <HH:MM> to <text>
 *   remind me every <weekday> at <HH:MM> to <text>
 *   reminders                             (a numbered list, or "No reminders.")
 *   cancel reminder <n>                   (the n-th of the list last shown)
 * `parseReminderCommand` is pure; `handleReminderCommand` answers one message.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { HandlerContext } from '../author/handlers';
import { WEEKDAYS, formatWallTime, parseWallTime, type WallTime, type Weekday } from '../../core/zoned-time';
import { REMINDER_FAILURE_TYPES, type Reminder } from '../../protocol/reminders';
import {
  describeReminder,
  readReminders,
  rememberShown,
  remindIn,
  remindAt,
  scheduleRecurring,
  cancelSchedule,
} from './reminders';
import { reply } from '../author/sending';
import { textOf } from '../author/text';
import type { InboundMessage } from '../../protocol/conversations';

/** The commands, as a bot's help text lists them. */
export const REMINDER_COMMANDS: readonly { command: string; description: string }[] = [
  {
    command: 'remind me in <n> <unit> to <text>',
    description: 'I remind you of <text> then (seconds to days)',
  },
  { command: 'remind me at <HH:MM> to <text>', description: 'I remind you of <text> at that time' },
  { command: 'remind me every day at <HH:MM> to <text>', description: 'every day (or every monday, ...)' },
  { command: 'reminders', description: 'your reminders, numbered' },
  { command: 'cancel reminder <n>', description: 'I cancel reminder <n> of that list' },
];

/** What a reminder command asks for. */
export type ReminderCommand =
  | { kind: 'in'; amount: number; unit: ReminderUnit; ms: number; text: string }
  | { kind: 'at'; time: WallTime; text: string }
  | { kind: 'every'; time: WallTime; days?: Weekday[]; text: string }
  | { kind: 'list' }
  | { kind: 'cancel'; n: number }
  /** A reminder command that does not parse: `problem` says what to write instead. */
  | { kind: 'invalid'; problem: string };

export type ReminderUnit = 'second' | 'minute' | 'hour' | 'day';

const UNIT_MS: Record<ReminderUnit, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** The longest delay `remind me in` takes: about ten years. */
const MAX_DELAY_MS = 3650 * UNIT_MS.day;

const USAGE =
  'Write: remind me in 10 minutes to <text>, remind me at 14:30 to <text>, or remind me every day at 08:00 to <text>.';

const REMIND = /^\s*\/?remind\s+me\b\s*([\s\S]*)$/i;
const IN = /^in\s+(\d+|an?)\s+(second|minute|hour|day)s?\s+to\s+([\s\S]+)$/i;
const AT = /^at\s+(\S+)\s+to\s+([\s\S]+)$/i;
const EVERY = /^every\s+(\w+)\s+at\s+(\S+)\s+to\s+([\s\S]+)$/i;
const LIST = /^\s*\/?(reminders|list\s+reminders)\s*$/i;
const CANCEL = /^\s*\/?cancel\s+reminder\s+(\S+)\s*$/i;

const DAY_WORDS: Record<string, Weekday> = Object.fromEntries(
  WEEKDAYS.flatMap((d, i) => {
    const full = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'][i];
    return [
      [d, d],
      [full, d],
      [`${full}s`, d],
    ];
  }),
);

function badTime(text: string): ReminderCommand {
  return { kind: 'invalid', problem: `"${text}" is not a time: use HH:MM, 24-hour clock (like 14:30).` };
}

/** The reminder command in `text`, or undefined when it is none (another command's message). */
export function parseReminderCommand(text: string | undefined): ReminderCommand | undefined {
  if (text === undefined) return undefined;
  if (LIST.test(text)) return { kind: 'list' };
  const cancel = CANCEL.exec(text);
  if (cancel) {
    const n = /^\d+$/.test(cancel[1]) ? Number(cancel[1]) : NaN;
    if (!(n >= 1))
      return { kind: 'invalid', problem: 'Write cancel reminder <n>, with n from the list of reminders.' };
    return { kind: 'cancel', n };
  }
  const remind = REMIND.exec(text);
  if (!remind) return undefined;
  const rest = remind[1].trim();
  const inMatch = IN.exec(rest);
  if (inMatch) {
    const amount = /^\d+$/.test(inMatch[1]) ? Number(inMatch[1]) : 1;
    const unit = inMatch[2].toLowerCase() as ReminderUnit;
    const ms = amount * UNIT_MS[unit];
    if (amount < 1) return { kind: 'invalid', problem: 'The delay must be at least 1.' };
    if (ms > MAX_DELAY_MS) return { kind: 'invalid', problem: 'That is too far ahead (ten years at most).' };
    return { kind: 'in', amount, unit, ms, text: inMatch[3].trim() };
  }
  const atMatch = AT.exec(rest);
  if (atMatch) {
    const time = parseWallTime(atMatch[1]);
    return time ? { kind: 'at', time, text: atMatch[2].trim() } : badTime(atMatch[1]);
  }
  const every = EVERY.exec(rest);
  if (every) {
    const word = every[1].toLowerCase();
    const day = DAY_WORDS[word];
    if (word !== 'day' && !day) {
      return {
        kind: 'invalid',
        problem: `"${every[1]}": write every day, or every monday (any day of the week).`,
      };
    }
    const time = parseWallTime(every[2]);
    if (!time) return badTime(every[2]);
    return { kind: 'every', time, ...(day ? { days: [day] } : {}), text: every[3].trim() };
  }
  return { kind: 'invalid', problem: `I did not understand that reminder. ${USAGE}` };
}

/**
 * The answer to a failed reminder call: the human's own mistakes are explained; anything else
 * (the reminders workflow not running, its activities out of retries) gets an apology, and the
 * handler fails after it, so that the operator sees the failure too.
 */
export function reminderFailureAnswer(err: unknown): { text: string; rethrow: boolean } {
  if (err instanceof ApplicationFailure && err.type === REMINDER_FAILURE_TYPES.tooMany) {
    return {
      text: 'You have too many reminders. Cancel one first (write reminders to see them).',
      rethrow: false,
    };
  }
  if (err instanceof ApplicationFailure && err.type === REMINDER_FAILURE_TYPES.invalid) {
    return { text: `${err.message}.`, rethrow: false };
  }
  return { text: REMINDERS_FAILED_TEXT, rethrow: true };
}

/** What the human hears when a reminder command failed on amsflow's side. */
export const REMINDERS_FAILED_TEXT =
  'Sorry, I could not do that: my reminders are not available right now. Please try again later.';

function confirmation(reminder: Reminder): string {
  const when = describeReminder(reminder);
  return `OK, I will remind you ${reminder.recurring ? '' : 'at '}${when}: ${reminder.text}`;
}

/** The numbered list as `reminders` answers it. */
export function formatReminderList(reminders: readonly Reminder[], now: number = Date.now()): string {
  if (reminders.length === 0) return 'No reminders.';
  return [
    'Your reminders:',
    ...reminders.map((r, i) => `${i + 1}. ${describeReminder(r, now)}: ${r.text}`),
    'Write cancel reminder <n> to cancel one.',
  ].join('\n');
}

async function cancelNumbered(n: number): Promise<string> {
  const { reminders, shown } = await readReminders();
  // The list the human last saw (numbers stay put while some of it fires), else today's list.
  const list = shown.length > 0 ? shown : reminders;
  const entry = list[n - 1];
  if (!entry) return `There is no reminder ${n}. Write reminders to see the list.`;
  const cancelled = await cancelSchedule(entry.id);
  return cancelled
    ? `Cancelled reminder ${n}: ${cancelled.text}`
    : `Reminder ${n} (${entry.text}) is not pending any more.`;
}

/**
 * Answers `message` when it is a reminder command (see the module); resolves to true when it
 * was one and was answered, false when it is not a reminder command (nothing was sent). Needs
 * the schedule activities on the worker and `remindersWorkflow` in the bot's bundle.
 */
export async function handleReminderCommand(
  message: InboundMessage,
  _ctx?: HandlerContext,
): Promise<boolean> {
  const command = parseReminderCommand(textOf(message));
  if (!command) return false;
  let answer: string;
  try {
    switch (command.kind) {
      case 'invalid':
        answer = command.problem;
        break;
      case 'in':
        answer = confirmation(await remindIn(command.ms, command.text));
        break;
      case 'at':
        answer = confirmation(await remindAt(formatWallTime(command.time), command.text));
        break;
      case 'every':
        answer = confirmation(
          await scheduleRecurring(
            { at: formatWallTime(command.time), ...(command.days ? { days: command.days } : {}) },
            command.text,
          ),
        );
        break;
      case 'list': {
        const { reminders, shown } = await readReminders();
        // Numbers the human can refer to later, from a fresh handler.
        if (reminders.length > 0 || shown.length > 0) {
          await rememberShown(reminders.map((r) => ({ id: r.id, text: r.text })));
        }
        answer = formatReminderList(reminders);
        break;
      }
      case 'cancel':
        answer = await cancelNumbered(command.n);
        break;
    }
  } catch (err) {
    const failed = reminderFailureAnswer(err);
    await reply(message, failed.text, { reconcileAmbiguous: true });
    if (failed.rethrow) throw err;
    return true;
  }
  // A reply lost to a crash mid-send is worse than the wait: let the agent settle it from receipts.
  await reply(message, answer, { reconcileAmbiguous: true });
  return true;
}
