/**
 * The contract of reminders between workflow code (`workflows/reminders/reminders.ts`) and the schedule
 * activities (`activities/schedules.ts`): the per-agent reminders workflow's id, type, signal and
 * query, and the shapes they carry. Side-effect free (definitions only).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Weekday } from '../core/zoned-time';

/** The workflow type of the reminders workflow (`remindersWorkflow`, in every bot's bundle). */
export const REMINDERS_WORKFLOW_TYPE = 'remindersWorkflow';

/** The reminders workflow of an agent: one per agent, holding all its reminders. */
export function remindersWorkflowId(agentKey: string): string {
  return `reminders:${agentKey}`;
}

/** When a recurring reminder fires: at `at` (`HH:MM`) every day, or only on `days`. */
export interface RecurringSpec {
  /** Wall-clock time in the reminder's zone, `HH:MM` (24-hour clock). */
  at: string;
  /** Only on these days of the week; every day when absent. */
  days?: Weekday[];
}

/** A pending reminder. */
export interface Reminder {
  id: string;
  /** What the human is reminded of; delivered as `⏰ <text>`. */
  text: string;
  /** IANA zone in which `recurring.at` is read and due times are shown. */
  timeZone: string;
  /** The next delivery (epoch ms). */
  dueAt: number;
  /** Set for a recurring reminder; a one-shot reminder is gone once delivered. */
  recurring?: RecurringSpec;
  /**
   * A one-shot reminder set for a wall time (`remind me at 09:00`): that time, `YYYY-MM-DD HH:MM`
   * in `timeZone`, which it keeps when the human changes zone. Absent for an instant (`in 2 hours`).
   */
  wall?: string;
  /** When it was created (epoch ms, workflow time). */
  createdAt: number;
  /** A delivery later than this (ms after its due time, after downtime) is skipped. */
  maxLatenessMs: number;
  /** A delivery at least this late (ms) says so: `⏰ <text> (late by 2 h)`. */
  lateAfterMs: number;
}

/** What the human last saw of `reminders`, so that `cancel reminder <n>` means that list's n-th. */
export interface ShownReminder {
  id: string;
  text: string;
}

/** A change to an agent's reminders. Idempotent: an id added twice, or again after it ended, is ignored. */
export type RemindersCommand =
  | { op: 'add'; reminder: Reminder }
  | { op: 'cancel'; id: string }
  | { op: 'shown'; list: ShownReminder[] }
  /** The human's time zone is now `timeZone`: kept, and every pending reminder moves to it. */
  | { op: 'zone'; timeZone: string };

/** The reminders workflow's state as its query answers it. */
export interface RemindersView {
  /** Pending reminders, soonest first. */
  reminders: Reminder[];
  /** The list the human was last shown. */
  shown: ShownReminder[];
  /** The zone the human set in the chat (`setTimeZone`); absent until they do. */
  timeZone?: string;
  /** Deliveries so far: sent, skipped as too late, failed to send. */
  delivered: number;
  skipped: number;
  failed: number;
}

/** What the read activity returns: the view, and the human's time zone. */
export interface RemindersRead extends RemindersView {
  /**
   * The human's zone: the one set in the chat, else the agent's `timeZone` in the agents file,
   * else the worker's `AMSFLOW_TIMEZONE`, else `UTC`.
   */
  defaultTimeZone: string;
}

/** The reminders workflow's input (and what it carries across continue-as-new). */
export interface RemindersInput {
  agentKey: string;
  reminders?: Reminder[];
  /** Ids of reminders that ended (delivered or cancelled), newest last: an add of one is ignored. */
  ended?: string[];
  shown?: ShownReminder[];
  /** The zone the human set in the chat, carried across continue-as-new. */
  timeZone?: string;
  delivered?: number;
  skipped?: number;
  failed?: number;
  /** Continue as new after this many history events (default 2000; tests lower it). */
  continueAfterEvents?: number;
}

/** The schedule activities (`createScheduleActivities`), on the workflow task queue. */
export interface ScheduleActivities {
  /** The agent's reminders (none when its reminders workflow never started). */
  amsflowRemindersRead(agentKey: string): Promise<RemindersRead>;
  /** Signals the agent's reminders workflow, starting it first if needed. */
  amsflowRemindersWrite(agentKey: string, command: RemindersCommand): Promise<void>;
}

/** Changes to the reminders workflow. */
export const remindersCommandSignal = defineSignal<[RemindersCommand]>('amsflow.reminders.command');
/** The reminders workflow's state. */
export const remindersQuery = defineQuery<RemindersView>('amsflow.reminders');

/** Failure types of the reminder API (`ApplicationFailure.type`). */
export const REMINDER_FAILURE_TYPES = {
  /** A bad argument: an unknown zone, a time in the past, an empty text, ... */
  invalid: 'ReminderInvalid',
  /** The agent has `MAX_REMINDERS` pending reminders already. */
  tooMany: 'TooManyReminders',
  /**
   * The agent's reminders workflow does not run: its worker has no `remindersWorkflow` (or none
   * polls its task queue). Nothing would ever be delivered, so the call fails instead.
   */
  unavailable: 'RemindersUnavailable',
  /**
   * The reminders workflow did not answer in time (its worker killed, the server restarting):
   * retryable, so the activity tries again; never seen by a workflow unless its retries run out.
   */
  notAnswering: 'RemindersNotAnswering',
} as const;

/** Pending reminders per agent, at most. */
export const MAX_REMINDERS = 100;
