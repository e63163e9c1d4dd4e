import { temporal } from '@temporalio/proto';
import { waitFor } from '../support/temporal';
import { recordHistory } from '../support/histories';
import { stateQuery } from '../../protocol/messages';
import { engineSuite, failureTypeOf, type Engine } from './support';

const { PendingActivityState } = temporal.api.enums.v1;

async function sendRequests(engine: Engine): Promise<number> {
  return (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'messages').length;
}

/** The service holds the agent's next send for 4 s, then accepts it (whoever is still there). */
async function holdNextSend(engine: Engine): Promise<void> {
  await engine.sim.control.fault({
    agent: engine.agentKey,
    endpoint: 'messages',
    count: 1,
    fault: { kind: 'slow', delayMs: 4000 },
  });
}

/** Until the held send has reached the service (a busy machine may take a while to send it). */
async function untilServiceHolds(engine: Engine): Promise<void> {
  await waitFor(
    'the service to hold the send',
    async () => (await engine.transcript()).counts.requests.messages >= 1,
  );
}

describe('ambiguous sends', () => {
  const suite = engineSuite();

  it.each([
    ['a 500 after the service accepted it', { kind: 'server_error_after_accept' } as const],
    ['a connection dropped after acceptance', { kind: 'drop_after' } as const],
  ])('does not send again after %s, and the sender gets AmbiguousSend', async (_name, fault) => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await engine.sim.control.fault({ agent: engine.agentKey, endpoint: 'messages', count: 1, fault });
    const id = await engine.human('probe hello once');
    expect(await failureTypeOf(engine, id)).toBe('AmbiguousSend');
    // The service accepted it once; nobody asked it again.
    expect(await engine.sentTexts()).toEqual(['hello once']);
    expect(await sendRequests(engine)).toBe(1);
    // The outbox goes on: the next message is answered normally.
    await engine.human('echo after');
    await waitFor('the next reply', async () => (await engine.sentTexts()).length === 2);
    expect(await engine.sentTexts()).toEqual(['hello once', 'after']);
    if (fault.kind === 'server_error_after_accept') {
      await recordHistory(
        engine.client.workflow.getHandle(engine.handlerWorkflowId(id)),
        'handler-ambiguous-send',
      );
    }
  });

  it('does not send again when the worker dies mid-send, and the sender gets AmbiguousSend', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    const worker = await engine.startWorker();
    // The service holds the request for 4 s, then accepts it (the connection is gone by then).
    await holdNextSend(engine);
    const id = await engine.human('probe sent while dying');
    const agent = engine.client.workflow.getHandle(engine.agentWorkflowId);
    await waitFor('the send activity to be running', async () => {
      const { raw } = await agent.describe();
      return (raw.pendingActivities ?? []).some(
        (a) =>
          a.activityType?.name === 'sendMessage' &&
          a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
      );
    });
    // ...and its request held by the service (a busy machine may take a while to send it).
    await untilServiceHolds(engine);
    await worker.kill();
    await engine.startWorker();
    expect(await failureTypeOf(engine, id)).toBe('AmbiguousSend');
    await waitFor('the held request to be accepted', async () => (await engine.sentTexts()).length === 1);
    await engine.human('echo still alive');
    await waitFor('the next reply', async () => (await engine.sentTexts()).length === 2);
    expect(await engine.sentTexts()).toEqual(['sent while dying', 'still alive']);
    expect(await sendRequests(engine)).toBe(2);
  });

  it('re-sends after an ambiguous outcome when the caller opted in', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await engine.sim.control.fault({
      agent: engine.agentKey,
      endpoint: 'messages',
      count: 1,
      fault: { kind: 'server_error_after_accept' },
    });
    const id = await engine.human('probe-retry twice is fine');
    expect(await failureTypeOf(engine, id)).toBeUndefined();
    // Accepted by the first attempt and again by the retry: the duplicate the caller accepted.
    expect(await engine.sentTexts()).toEqual(['twice is fine', 'twice is fine']);
    expect(await sendRequests(engine)).toBe(2);
  });

  it.each([
    ['quoting it', true],
    ['quoting nothing (the next message)', false],
  ])('routes an answer %s to a question whose send is being reconciled', async (_name, quoting) => {
    // The chaos run's case: a worker dies while the service holds the question; the service
    // accepts it, the human answers quoting it, and the next worker reads the answer (and the
    // question's 'sent' receipt) before it has settled the lost send from those very receipts.
    const engine = await suite.start({ windowMs: 2000 });
    const worker = await engine.startWorker();
    await holdNextSend(engine);
    await engine.human('rquiz');
    await untilServiceHolds(engine);
    await worker.kill();
    await waitFor('the held question to be accepted', async () => (await engine.sentTexts()).length === 1);
    const [question] = (await engine.transcript()).sent;
    await engine.human('forty-two', quoting ? { id: question.id } : undefined);
    await engine.startWorker();
    await waitFor('the answer to reach the question', async () => (await engine.sentTexts()).length >= 2, {
      timeoutMs: 60_000,
    });
    // Exactly the quiz's own reply, and no new handler for the answer.
    expect(await engine.sentTexts()).toEqual(['What is your answer?', 'answer: forty-two']);
    const state = await engine.client.workflow.getHandle(engine.agentWorkflowId).query(stateQuery);
    expect(state.counters.received).toBe(2);
  });

  it.each([
    ['accepted before a 500', { kind: 'server_error_after_accept' } as const, 1],
    ['lost before it reached the service', { kind: 'drop_before' } as const, 2],
  ])('settles an ambiguous send from receipts when asked to: %s', async (_name, fault, requests) => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await engine.sim.control.fault({ agent: engine.agentKey, endpoint: 'messages', count: 1, fault });
    const id = await engine.human('probe-reconcile exactly one copy');
    // The handler succeeds: the message was either found among the receipts or proven unsent.
    expect(await failureTypeOf(engine, id)).toBeUndefined();
    expect(await engine.sentTexts()).toEqual(['exactly one copy']);
    expect(await sendRequests(engine)).toBe(requests);
  });
});
