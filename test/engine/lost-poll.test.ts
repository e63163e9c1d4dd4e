/**
 * Recovery after a worker process is killed mid-poll, at the spec's 25-s polls: the poll lease
 * would have the agent's next poll wait until the dead worker's poll could have ended at the
 * service (the poll's timeout, 24 s here after the timeout was noticed), but a worker process
 * that ended has no request open anywhere, and its ticket says so (activities/poll-tickets.ts):
 * the next poll goes out after the close grace, and the service never sees two polls at once.
 * A worker that starts on the machine gives such a poll up itself (worker/ended-polls.ts): the
 * agent's workflow tasks then skip the dead worker's sticky queue, and its next poll waits no
 * backoff.
 */
import { temporal } from '@temporalio/proto';
import { eventMs } from '../../bench/breakdown';
import { lostPollWaitMs } from '../../protocol/agent';
import { recordHistory } from '../support/histories';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

const POLL_SECONDS = 25;
const HEARTBEAT_MS = 3000;

describe('a poll lost with its worker process', () => {
  const suite = engineSuite();

  it("is followed by the next poll long before the lease's wait, and no poll is replaced", async () => {
    const engine = await suite.start({
      windowMs: 60_000,
      tuning: { pollTimeoutSeconds: POLL_SECONDS, activityHeartbeatTimeoutMs: HEARTBEAT_MS },
    });
    const worker = await engine.startWorker();
    await engine.human('echo 1');
    await waitFor('the first echo', async () => (await engine.sentTexts()).length === 1, {
      timeoutMs: 60_000,
    });
    // The agent sits in a long poll at the service.
    await waitFor('a long poll open at the service', async () => (await engine.transcript()).polling, {
      timeoutMs: 30_000,
    });
    const killedAt = Date.now();
    await worker.kill();
    // The dead worker's poll closed with its process; the next one is the new worker's.
    const polling = async () => (await engine.transcript()).polling;
    await waitFor('the dead poll closed at the service', async () => !(await polling()), {
      timeoutMs: 10_000,
    });
    const next = await engine.startWorker();
    await waitFor('the next poll open at the service', polling, { timeoutMs: 90_000, intervalMs: 50 });
    const reopenedAfterMs = Date.now() - killedAt;
    // The heartbeat timeout must pass before Temporal gives the lost poll up; the lease's wait
    // would come on top of that.
    expect(reopenedAfterMs).toBeLessThan(lostPollWaitMs(POLL_SECONDS, HEARTBEAT_MS));
    // The new worker saw the dead one's attempt and gave it up (worker/ended-polls.ts); its log
    // line may reach us after the poll it let open reached the service.
    await waitFor(
      'the new worker to log the give-up',
      () => next.output.join('\n').includes('1 poll(s) of ended worker processes given up'),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    await engine.human('echo 2');
    await waitFor('the echo written after the kill', async () => (await engine.sentTexts()).length === 2, {
      timeoutMs: 60_000,
    });
    const polls = (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'updates');
    expect(polls.filter((e) => e.status === 409)).toEqual([]);
    expect(await engine.sentTexts()).toEqual(['1', '2']);
    await recordHistory(engine.client.workflow.getHandle(engine.agentWorkflowId), 'agent-lost-poll');
  });

  it('is given up by the next worker at once: no task waits on the dead sticky queue, no backoff', async () => {
    // The poll's heartbeat timeout stays at its 5-s cap (tuning.ts), not the suite's 3 s:
    // the new worker, running about 2 s after the kill, gives the attempt up before it passes.
    const engine = await suite.start({
      windowMs: 60_000,
      tuning: { pollTimeoutSeconds: POLL_SECONDS, activityHeartbeatTimeoutMs: 60_000 },
    });
    const worker = await engine.startWorker();
    await engine.human('echo 1');
    await waitFor('the first echo', async () => (await engine.sentTexts()).length === 1, {
      timeoutMs: 60_000,
    });
    const polling = async () => (await engine.transcript()).polling;
    await waitFor('a long poll open at the service', polling, { timeoutMs: 30_000 });
    const killedAt = Date.now();
    await worker.kill();
    const next = await engine.startWorker();
    await waitFor(
      "the new worker to give the dead one's poll up",
      () => next.output.join('\n').includes('1 poll(s) of ended worker processes given up'),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    await engine.human('echo 2');
    await waitFor('the echo written after the kill', async () => (await engine.sentTexts()).length === 2, {
      timeoutMs: 30_000,
    });
    const handle = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const events = (await handle.fetchHistory()).events ?? [];
    const after = events.filter((e) => eventMs(e) >= killedAt);
    const T = temporal.api.enums.v1.EventType;
    // Every workflow task after the kill went to a live worker: none timed out on the dead one's queue.
    expect(after.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toEqual([]);
    const givenUp = after.findIndex(
      (e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'PollWorkerEnded',
    );
    expect(givenUp).toBeGreaterThanOrEqual(0);
    const nextPoll = after
      .slice(givenUp)
      .find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'pollUpdates');
    const input = JSON.parse(
      Buffer.from(nextPoll!.activityTaskScheduledEventAttributes!.input!.payloads![0].data!).toString(),
    ) as { startAfterMs?: number; lostPoll?: unknown };
    // A failure's backoff would be 500-1000 ms; a lost poll's wait is not handed on either.
    expect(input.startAfterMs ?? 0).toBeLessThan(300);
    expect(input.lostPoll).toBeUndefined();
    expect(await engine.sentTexts()).toEqual(['1', '2']);
    await recordHistory(handle, 'agent-poll-worker-ended');
  });
});
