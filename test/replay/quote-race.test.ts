/**
 * A reply to a question handled in the same workflow task as the question's send result: found by
 * the cluster chaos run (2026-11-28), where an approval's quoted "yes" reached a new handler and
 * the approval waited on. The history (test/replay/fixtures/agent-quote-race.json, agent
 * `cluster946a72-3`) is that run's: one workflow task took both the poll's page with the "yes"
 * and the question's send result, and the send's id was known to the quote hold before the
 * question's wait was registered, so the page did not wait. Today's code makes the id known only
 * when the outcome is settled (workflows/engine/sender.ts `settle`).
 *
 * The replayer runs a history's last, unfinished workflow task as today's code: the history cut
 * just after the task that took both shows that decision. (The whole history, recorded from the
 * old decision, no longer replays: it is kept out of test/histories/.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, bundleWorkflowCode, type InjectedSinks } from '@temporalio/worker';
import { quietLogger } from '../support/temporal';
import type { ProbeSinks } from './command-probe';

const WORKFLOW_ID = 'agent:cluster946a72-3';
const APPROVAL = 'approval:cluster946a72-3:c3';

interface HistoryEvent {
  eventId: string;
  eventType: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  activityTaskCompletedEventAttributes?: { scheduledEventId?: string };
}

const recorded = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'agent-quote-race.json'), 'utf8')) as {
  events: HistoryEvent[];
};

/** The replay bundle with the command probe, built once for both tests. */
let probedBundle: ReturnType<typeof bundleWorkflowCode> | undefined;

/** Replays `events`, returning the child starts and signals the code issued ("kind workflowId name"). */
async function commandsOf(events: HistoryEvent[]): Promise<string[]> {
  probedBundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('./all-workflows'),
    workflowInterceptorModules: [require.resolve('./command-probe')],
    logger: quietLogger,
  });
  const workflowBundle = await probedBundle;
  const commands: string[] = [];
  const sinks: InjectedSinks<ProbeSinks> = {
    probe: {
      command: {
        fn: (_info, kind, workflowId, name) => void commands.push(`${kind} ${workflowId} ${name}`),
        callDuringReplay: true,
      },
    },
  };
  await Worker.runReplayHistory({ workflowBundle, sinks, replayName: 'quote-race' }, { events }, WORKFLOW_ID);
  return commands;
}

describe('a reply handled in the same workflow task as its question’s send result', () => {
  // The task that took both results: the first one started after the question's send completed.
  const sendScheduled = recorded.events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendMessage',
  );
  const sendCompleted = recorded.events.findIndex(
    (e) =>
      e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_COMPLETED' &&
      e.activityTaskCompletedEventAttributes?.scheduledEventId === sendScheduled?.eventId,
  );
  const bothTaken = recorded.events.findIndex(
    (e, i) => i > sendCompleted && e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_STARTED',
  );

  it('goes to the question’s wait: the approval gets the "yes", no handler starts', async () => {
    expect(sendCompleted).toBeGreaterThan(0);
    expect(bothTaken).toBeGreaterThan(sendCompleted);
    const commands = await commandsOf(recorded.events.slice(0, bothTaken + 1));
    expect(commands.filter((c) => c.startsWith('startChild'))).toEqual([]);
    expect(commands.filter((c) => c.startsWith(`signal ${APPROVAL}`)).length).toBeGreaterThan(0);
  }, 120_000);
});
