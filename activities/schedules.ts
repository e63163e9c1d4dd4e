/**
 * The schedule activities: what reminders (`workflows/reminders/reminders.ts`) need a Temporal client for.
 * Workflow code can signal another workflow but neither signal-with-start nor query it, so the
 * two steps that touch an agent's reminders workflow are activities: a read (its query) and a
 * write (signal-with-start). Register them on the workflow task queue, next to the bot's own:
 *
 *   activities: { ...createScheduleActivities(client, { taskQueue, timeZone }), ...botActivities }
 *
 * A write may be retried after it reached the workflow: the workflow ignores an add it has seen.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DEFAULT_TIME_ZONE, canonicalTimeZone, isTimeZone } from '../core/zoned-time';
import {
  REMINDER_FAILURE_TYPES,
  REMINDERS_WORKFLOW_TYPE,
  remindersCommandSignal,
  remindersQuery,
  remindersWorkflowId,
  type RemindersCommand,
  type RemindersInput,
  type RemindersRead,
  type ScheduleActivities,
} from '../protocol/reminders';
import { withHeartbeats } from './heartbeats';

export type { ScheduleActivities } from '../protocol/reminders';

/** How long a write waits, by default, for the reminders workflow to answer that it runs. */
const CONFIRM_MS = 20_000;

/** How often a write that waits for the answer looks for a failed workflow task. */
const TASK_FAILURE_CHECK_MS = 500;
/**
 * How long a failed workflow task must stay the workflow's last before the write gives up early
 * (the server retries a failed task at once; one that then completes was transient).
 */
const FAILURE_STANDS_MS = 2_000;
/** A promise that never settles: a race's side that has nothing to say. */
const never = new Promise<never>(() => undefined);

export interface ScheduleActivityOptions {
  /** The task queue of the worker that runs the bot's workflows (the reminders workflow runs there). */
  taskQueue: string;
  /** The human's IANA time zone (`AMSFLOW_TIMEZONE`): the default of new reminders. Default `UTC`. */
  timeZone?: string;
  /** Per agent (agentKey -> IANA zone, the agents file's `timeZone`): before `timeZone`. */
  timeZones?: Readonly<Record<string, string>>;
  /**
   * How long a write waits for the reminders workflow to answer that it runs before it fails, to be
   * retried (`RemindersNotAnswering`). Default 20 s: a killed worker's or a restarting server's
   * workflow answers late.
   */
  confirmMs?: number;
}

/**
 * The failure message of the workflow's last workflow task, if it failed and none completed since
 * (a task that failed once and then completed, e.g. on a worker lost mid-task, says nothing).
 */
async function workflowTaskFailure(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const last = (history.events ?? [])
      .filter((e) => e.workflowTaskFailedEventAttributes || e.workflowTaskCompletedEventAttributes)
      .at(-1);
    const failed = last?.workflowTaskFailedEventAttributes;
    return failed ? (failed.failure?.message ?? 'its workflow task failed') : undefined;
  } catch {
    return undefined;
  }
}

/** Refuses a worker zone or an agent's zone that is not an IANA time zone. */
function checkZones(options: ScheduleActivityOptions): void {
  if (!isTimeZone(options.timeZone ?? DEFAULT_TIME_ZONE)) {
    throw new RangeError(`${JSON.stringify(options.timeZone)} is not an IANA time zone (like Europe/Berlin)`);
  }
  for (const [agentKey, zone] of Object.entries(options.timeZones ?? {})) {
    if (!isTimeZone(zone))
      throw new RangeError(
        `agent "${agentKey}": ${JSON.stringify(zone)} is not an IANA time zone (like Europe/Berlin)`,
      );
  }
}

/** The schedule activities over `client` (its namespace is the reminders workflows'). */
export function createScheduleActivities(
  client: Client,
  options: ScheduleActivityOptions,
): ScheduleActivities {
  checkZones(options);
  const confirmMs = options.confirmMs ?? CONFIRM_MS;
  const timeZone = canonicalTimeZone(options.timeZone ?? DEFAULT_TIME_ZONE);
  // The human's zone: set in the chat (kept by the reminders workflow), else the agent's, else the worker's.
  const zoneOf = (agentKey: string, set: string | undefined) => {
    const configured = options.timeZones?.[agentKey];
    return set ?? (configured === undefined ? timeZone : canonicalTimeZone(configured));
  };
  return {
    async amsflowRemindersRead(agentKey: string): Promise<RemindersRead> {
      try {
        const view = await withHeartbeats(
          client.workflow.getHandle(remindersWorkflowId(agentKey)).query(remindersQuery),
        );
        return { ...view, defaultTimeZone: zoneOf(agentKey, view.timeZone) };
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        const defaultTimeZone = zoneOf(agentKey, undefined);
        return { reminders: [], shown: [], delivered: 0, skipped: 0, failed: 0, defaultTimeZone };
      }
    },
    async amsflowRemindersWrite(agentKey: string, command: RemindersCommand): Promise<void> {
      const input: RemindersInput = { agentKey };
      const handle = await withHeartbeats(
        client.workflow.signalWithStart(REMINDERS_WORKFLOW_TYPE, {
          workflowId: remindersWorkflowId(agentKey),
          taskQueue: options.taskQueue,
          args: [input],
          signal: remindersCommandSignal,
          signalArgs: [command],
        }),
      );
      // A worker without the reminders workflow takes the start and can never run it: the
      // reminder would be accepted and never delivered. Its query answers only if it runs; a
      // workflow task that failed says at once that it cannot (the query would only time out).
      let answered = false;
      const query = client.withDeadline(Date.now() + confirmMs, () => handle.query(remindersQuery));
      // A failure still the last word after its retries had time to complete (FAILURE_STANDS_MS).
      const failedWhileWaiting = (async () => {
        let failedSince: number | undefined;
        while (!answered) {
          await new Promise((r) => setTimeout(r, TASK_FAILURE_CHECK_MS));
          const failed = answered ? undefined : await workflowTaskFailure(client, handle.workflowId);
          if (failed === undefined) failedSince = undefined;
          else if (failedSince === undefined) failedSince = Date.now();
          else if (Date.now() - failedSince >= FAILURE_STANDS_MS) return failed;
        }
        return undefined;
      })();
      let failedTask: string | undefined;
      try {
        failedTask = await withHeartbeats(
          Promise.race([query.then(() => undefined), failedWhileWaiting.then((f) => f ?? never)]),
        );
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        // Not answering is not yet "does not run": a worker killed with the workflow in its cache
        // or a server restarting answers late. Only a workflow task that failed says the worker
        // cannot run it; anything else is retried (the add is idempotent).
        failedTask = await workflowTaskFailure(client, handle.workflowId);
        if (failedTask === undefined) {
          throw ApplicationFailure.create({
            type: REMINDER_FAILURE_TYPES.notAnswering,
            message: `The reminders workflow ${handle.workflowId} did not answer within ${confirmMs} ms: ${reason}`,
          });
        }
      } finally {
        answered = true;
        query.catch(() => undefined);
      }
      if (failedTask !== undefined) {
        throw ApplicationFailure.create({
          type: REMINDER_FAILURE_TYPES.unavailable,
          message:
            `The reminders workflow ${handle.workflowId} does not run on task queue ${options.taskQueue} ` +
            `(does the worker's bundle export remindersWorkflow?): ${failedTask}`,
          nonRetryable: true,
        });
      }
    },
  };
}
