/**
 * The time-zone commands of the reference bot, for any bot to reuse:
 *   my time zone is <zone>     (an IANA zone, like Europe/Berlin; "timezone" too)
 *   what time is it            (the time on the human's clock, and its zone)
 * `parseTimeZoneCommand` is pure; `handleTimeZoneCommand` answers one message.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describeReminder } from './reminders';
import { formatClock } from './reminder-zone';
import { reply } from '../author/sending';
import { textOf } from '../author/text';
import { TIME_ZONE_INVALID, setTimeZone, timeZone } from './time-zone';
import type { InboundMessage } from '../../protocol/conversations';

/** The commands, as a bot's help text lists them. */
export const TIME_ZONE_COMMANDS: readonly { command: string; description: string }[] = [
  { command: 'my time zone is <zone>', description: 'I use your clock, e.g. Europe/Berlin' },
  { command: 'what time is it', description: 'the time on your clock' },
];

/** What a time-zone command asks for. */
export type TimeZoneCommand = { kind: 'set'; zone: string } | { kind: 'now' };

const SET = /^\s*\/?my\s+time\s?zone\s+is\s+(\S+?)[.!]?\s*$/i;
const NOW = /^\s*\/?what\s+time\s+is\s+it\s*[?!.]*\s*$/i;

/** The time-zone command in `text`, or undefined when it is none. */
export function parseTimeZoneCommand(text: string | undefined): TimeZoneCommand | undefined {
  if (text === undefined) return undefined;
  const set = SET.exec(text);
  if (set) return { kind: 'set', zone: set[1] };
  return NOW.test(text) ? { kind: 'now' } : undefined;
}

/** The answer to "what time is it". */
export function nowText(now: number, zone: string): string {
  return `It is ${formatClock(now, zone)}.`;
}

async function change(zone: string): Promise<string> {
  try {
    const { timeZone: set, reminders } = await setTimeZone(zone);
    const now = Date.now();
    const head = `OK, your time zone is ${set}: it is ${formatClock(now, set)}.`;
    if (reminders.length === 0) return head;
    return [
      `${head} Your reminders keep their clock times:`,
      ...reminders.map((r, i) => `${i + 1}. ${describeReminder(r, now)}: ${r.text}`),
    ].join('\n');
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === TIME_ZONE_INVALID) {
      return `"${zone}" is not a time zone I know. Write it like Europe/Berlin or America/New_York.`;
    }
    throw err;
  }
}

/**
 * Answers `message` when it is a time-zone command; resolves to true when it was one, false when
 * not (nothing was sent). Needs what reminders need (schedule activities, `remindersWorkflow`).
 */
export async function handleTimeZoneCommand(message: InboundMessage): Promise<boolean> {
  const command = parseTimeZoneCommand(textOf(message));
  if (!command) return false;
  const answer = command.kind === 'set' ? await change(command.zone) : nowText(Date.now(), await timeZone());
  await reply(message, answer, { reconcileAmbiguous: true });
  return true;
}
