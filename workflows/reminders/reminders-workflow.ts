/**
 * The reminders workflow, one per agent (`reminders:<agentKey>`): holds the agent's reminders,
 * sleeps until the soonest, and sends it through the agent's outbox; late deliveries are marked
 * or skipped by the catch-up policy, recurring ones never burst. The API that talks to it is
 * `reminders.ts`.
 */
import {
  allHandlersFinished,
  condition,
  log,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { remindersCommandSchema } from '../../protocol/message-schemas';
import { wakeSignal } from '../../protocol/messages';
import { newBuildCurrent, onCurrentBuild } from '../author/build-moves';
import { setCheckedSignal } from '../author/checked-handlers';
import { useAgent } from '../author/handlers';
import { countReminderFired } from '../author/metrics';
import { sendText } from '../author/sending';
import {
  WEEKDAYS,
  canonicalTimeZone,
  formatLateness,
  isTimeZone,
  nextOccurrence,
  parseWallTime,
} from '../../core/zoned-time';
import { moveToZone, parseLocal } from './reminder-zone';
import {
  MAX_REMINDERS,
  remindersCommandSignal,
  remindersQuery,
  type Reminder,
  type RemindersInput,
  type RemindersView,
} from '../../protocol/reminders';

/** Ended ids remembered (an add retried after its reminder ended must not bring it back). */
const ENDED_KEPT = 500;
/** History events after which the workflow continues as new (the server suggests it at 4096). */
const CONTINUE_AFTER_EVENTS = 2000;

/**
 * The last occurrence of a recurring reminder at or before `now`, starting from its due time
 * `dueAt` (which is at or before `now`).
 */
function lastOccurrence(reminder: Reminder, now: number): number {
  const time = parseWallTime(reminder.recurring!.at)!;
  let last = reminder.dueAt;
  // Bounded: a year of daily occurrences; past that, the occurrence before now is close enough.
  for (let i = 0; i < 400; i++) {
    const next = nextOccurrence(last, time, reminder.timeZone, reminder.recurring!.days);
    if (next > now) return last;
    last = next;
  }
  return last;
}

/** Why a reminder from a signal cannot be kept (it would fail the workflow later), or undefined. */
export function reminderProblem(r: Reminder | undefined): string | undefined {
  if (typeof r !== 'object' || r === null) return 'not a reminder';
  if (typeof r.id !== 'string' || !r.id) return 'no id';
  if (typeof r.text !== 'string' || !r.text) return `${r.id}: no text`;
  if (!isTimeZone(r.timeZone)) return `${r.id}: unknown time zone`;
  for (const key of ['dueAt', 'createdAt', 'maxLatenessMs', 'lateAfterMs'] as const) {
    if (typeof r[key] !== 'number' || !Number.isFinite(r[key])) return `${r.id}: ${key} is not a number`;
  }
  if (r.wall !== undefined && !parseLocal(r.wall)) return `${r.id}: wall is not YYYY-MM-DD HH:MM`;
  if (r.recurring !== undefined) {
    if (!parseWallTime(String(r.recurring?.at))) return `${r.id}: recurring.at is not HH:MM`;
    const days = r.recurring.days;
    if (
      days !== undefined &&
      (!Array.isArray(days) || days.length === 0 || !days.every((d) => WEEKDAYS.includes(d)))
    ) {
      return `${r.id}: recurring.days is not a list of weekdays`;
    }
  }
  return undefined;
}

/**
 * The agent's reminders (`reminders:<agentKey>`): started by the first reminder (signal-with-
 * start from the schedule activities), it holds every pending reminder of the agent, sleeps
 * until the soonest, and delivers it through the agent's outbox as `⏰ <text>`. Changes come
 * as `amsflow.reminders.command` signals; the `amsflow.reminders` query answers its state.
 * Every bot's bundle carries it (workflows/engine-workflows.ts; worker/bot-bundle.ts adds it).
 */
export async function remindersWorkflow(input: RemindersInput): Promise<void> {
  useAgent(input.agentKey);
  const reminders = new Map<string, Reminder>((input.reminders ?? []).map((r) => [r.id, r]));
  const ended = [...(input.ended ?? [])];
  const endedSet = new Set(ended);
  let shown = input.shown ?? [];
  // The human's zone, set in the chat: kept here, beside the reminders it moves.
  let timeZone = input.timeZone;
  const counts = { delivered: input.delivered ?? 0, skipped: input.skipped ?? 0, failed: input.failed ?? 0 };
  let changed = false;

  const end = (id: string) => {
    reminders.delete(id);
    if (endedSet.has(id)) return;
    ended.push(id);
    endedSet.add(id);
    while (ended.length > ENDED_KEPT) endedSet.delete(ended.shift()!);
  };

  setCheckedSignal(remindersCommandSignal, remindersCommandSchema, (command) => {
    changed = true;
    if (command.op === 'add') {
      const r = command.reminder;
      const problem = reminderProblem(r);
      if (problem) {
        log.warn(`reminders: add ignored: ${problem}`);
        return;
      }
      if (reminders.has(r.id) || endedSet.has(r.id)) return;
      // The API checks the count; this bounds the state against racing adds.
      if (reminders.size >= MAX_REMINDERS * 2) {
        log.warn('reminders: too many pending, add ignored', { id: r.id });
        return;
      }
      reminders.set(r.id, r);
    } else if (command.op === 'cancel') {
      end(command.id);
    } else if (command.op === 'shown') {
      shown = command.list.slice(0, MAX_REMINDERS);
    } else if (command.op === 'zone') {
      if (!isTimeZone(command.timeZone)) {
        log.warn('reminders: zone ignored: not an IANA time zone');
        return;
      }
      timeZone = canonicalTimeZone(command.timeZone);
      const now = Date.now();
      for (const [id, r] of reminders) reminders.set(id, moveToZone(r, timeZone, now));
    }
  });
  const view = (): RemindersView => ({
    reminders: [...reminders.values()].sort((a, b) => a.dueAt - b.dueAt || a.createdAt - b.createdAt),
    shown,
    ...(timeZone === undefined ? {} : { timeZone }),
    ...counts,
  });
  setHandler(remindersQuery, view);
  setHandler(wakeSignal, () => {
    changed = true;
  });

  async function deliver(reminder: Reminder, now: number): Promise<void> {
    // The state moves first: a cancel or a crash during the send never brings it back.
    let dueAt = reminder.dueAt;
    if (reminder.recurring) {
      dueAt = lastOccurrence(reminder, now);
      const time = parseWallTime(reminder.recurring.at)!;
      reminders.set(reminder.id, {
        ...reminder,
        dueAt: nextOccurrence(now, time, reminder.timeZone, reminder.recurring.days),
      });
    } else {
      end(reminder.id);
    }
    const late = now - dueAt;
    if (late > reminder.maxLatenessMs) {
      counts.skipped++;
      countReminderFired(input.agentKey, 'skipped');
      log.info('reminders: skipped, later than maxLateness', { id: reminder.id, lateMs: late });
      return;
    }
    const note = late >= reminder.lateAfterMs ? ` (late by ${formatLateness(late)})` : '';
    try {
      // Confirmed: `delivered` and `failed` count what the service answered.
      await sendText(`⏰ ${reminder.text}${note}`, { reconcileAmbiguous: true, confirm: true });
      counts.delivered++;
      countReminderFired(input.agentKey, 'delivered');
    } catch (err) {
      counts.failed++;
      countReminderFired(input.agentKey, 'failed');
      log.warn('reminders: delivery failed', { id: reminder.id, error: String(err) });
    }
  }

  for (;;) {
    const now = Date.now();
    const due = view().reminders.filter((r) => r.dueAt <= now);
    for (const reminder of due) {
      // Cancelled meanwhile (during an earlier delivery)?
      if (reminders.get(reminder.id) === reminder) await deliver(reminder, Date.now());
    }
    if (due.length > 0) continue;
    const info = workflowInfo();
    if (
      info.continueAsNewSuggested ||
      info.historyLength > (input.continueAfterEvents ?? CONTINUE_AFTER_EVENTS) ||
      newBuildCurrent()
    ) {
      await condition(allHandlersFinished);
      const carried = view();
      // Onto the current build when another is current (a deploy: build-moves.ts).
      await makeContinueAsNewFunc<typeof remindersWorkflow>(onCurrentBuild(info.currentDeploymentVersion))({
        agentKey: input.agentKey,
        reminders: carried.reminders,
        ended,
        shown,
        ...(timeZone === undefined ? {} : { timeZone }),
        ...counts,
        ...(input.continueAfterEvents === undefined
          ? {}
          : { continueAfterEvents: input.continueAfterEvents }),
      });
    }
    changed = false;
    const next = view().reminders[0]?.dueAt;
    // A wake (`amsflow.wake`, sent at a promotion) makes it look: a newly current build is moved to.
    const looked = () => changed || newBuildCurrent();
    if (next === undefined) await condition(looked);
    else await condition(looked, Math.max(1, next - Date.now()));
  }
}
