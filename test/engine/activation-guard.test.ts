/**
 * The activation guard (workflows/engine/activation-guard.ts) against the SDK core defect it
 * stops, on the dev server, in its two forms; each reproduction runs real worker processes that
 * are SIGKILLed.
 *
 * The clock rule: a worker that holds a run is killed with a timer pending, the timer fires while
 * no worker is up, queries keep coming, and a new worker (without the run in its cache) is handed
 * those queries before the timer's workflow task. Unguarded, the core runs the fired timer live
 * on the clock of the task before, the run starts a second timer, and a replay of its history
 * fails for nondeterminism.
 *
 * The query rule (what the cluster chaos run met on an agent): a query is sent to the queue of a
 * worker that was just killed, waits there, and goes to another worker that does not hold the
 * run; by then a signal has come and a workflow task has been *started* by a worker that will
 * never finish it. The other worker rebuilds the run for the query and runs the signal live (with
 * that started task's clock, so the clock did move), keeps the run with what it decided, and
 * sends that with its next real task, where a replay decides on the signal together with the
 * ones that came after. Unguarded, that run never ends and its history does not replay.
 *
 * Guarded, the activation (or the query) fails, the run is rebuilt from its history for the next
 * task, and each run ends as a replay of its history does.
 */
import { Worker } from '@temporalio/worker';
import { temporal as proto } from '@temporalio/proto';
import { connectDevServer, waitFor } from '../support/temporal';
import { BareWorkers, keepQuerying } from './bare-workers';

const TIMER_MS = 3000;

describe('the activation guard', () => {
  let workers: BareWorkers;
  let temporal: Awaited<ReturnType<typeof connectDevServer>>;

  beforeAll(async () => {
    workers = await BareWorkers.create(require.resolve('./clock-workflows'));
    temporal = await connectDevServer();
  });
  afterAll(async () => {
    workers.dispose();
    await temporal.close();
  });

  it('clock rule: fails the activation a query ran on a stale clock; the run ends with one timer and replays', async () => {
    const { client } = temporal;
    const taskQueue = `stale-clock-${Date.now()}`;
    const first = await workers.start(taskQueue);
    const handle = await client.workflow.start('sleepUntilDue', {
      taskQueue,
      workflowId: `${taskQueue}-wf`,
      args: [TIMER_MS],
    });
    const events = async () => (await handle.fetchHistory()).events ?? [];
    await waitFor('the timer to start', async () =>
      (await events()).some((e) => e.timerStartedEventAttributes),
    );
    first.kill('SIGKILL');

    // Queries while no worker holds the run; answered by the next worker, from history.
    const queries = keepQuerying(() => handle.query<number>('clock'));
    await waitFor(
      'the timer to fire',
      async () => (await events()).some((e) => e.timerFiredEventAttributes),
      {
        timeoutMs: TIMER_MS + 10_000,
      },
    );
    await workers.start(taskQueue);
    const timers = await handle.result();
    const errors = await queries.stop();

    expect(timers).toBe(1);
    const history = await handle.fetchHistory();
    expect(history.events!.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    await Worker.runReplayHistory(
      { workflowBundle: { code: workers.code }, replayName: 'stale-clock' },
      history,
    );
    // The guard met the stale activation: the queries it ran for failed with its reason.
    expect(errors.some((message) => /stale workflow clock/.test(message))).toBe(true);
  }, 90_000);

  it('query rule: fails a query right after a rebuilt run ran new events live; the run ends in one round', async () => {
    const { client, connection } = temporal;
    const service = connection.workflowService;
    const taskQueue = `query-replay-${Date.now()}`;
    const first = await workers.start(taskQueue);
    const handle = await client.workflow.start('gatherOps', {
      taskQueue,
      workflowId: `${taskQueue}-wf`,
      // Long enough for the query's detour (the killed worker's 10-s sticky wait) to end first.
      workflowTaskTimeout: '20s',
    });
    const execution = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
    await waitFor('the first workflow task to complete', async () =>
      ((await handle.fetchHistory()).events ?? []).some((e) => e.workflowTaskCompletedEventAttributes),
    );
    first.kill('SIGKILL');

    // Sent while no task is open: the server sends it to the killed worker's queue, where it waits.
    const query = handle.query<number>('clock').then(
      () => 'answered',
      (err: Error) => err.message,
    );
    // Its dispatch cannot be observed; give the server a moment to take it in before the signal.
    await new Promise((r) => setTimeout(r, 500));
    await service.resetStickyTaskQueue({ namespace: 'default', execution });
    await handle.signal('op', 'a');
    // A worker that takes the signal's task and dies with it: one poll, never completed.
    const doomed = await connection.withDeadline(Date.now() + 20_000, () =>
      service.pollWorkflowTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        identity: 'doomed',
      }),
    );
    expect(doomed.query).toBeFalsy();
    expect(Number(doomed.startedEventId)).toBeGreaterThan(0);

    // The query leaves the killed worker's queue for this worker, which does not hold the run.
    await workers.start(taskQueue);
    const queried = await query;
    await handle.signal('op', 'b');

    // The doomed task times out; the next one delivers both signals: one round.
    const rounds = await Promise.race([
      handle.result(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the run did not end')), 40_000)),
    ]);
    expect(rounds).toBe(1);
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { code: workers.code }, replayName: 'query-replay' },
      history,
    );
    // The guard met the query the rebuilt run was asked: refused, with its reason.
    expect(queried).toMatch(/query on a rebuilt run/);
  }, 90_000);
});
