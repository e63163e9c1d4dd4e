import type { temporal } from '@temporalio/proto';
import { sendThroughOutbox, getAgentState } from '../../client/agents';
import { wakeSignal } from '../../protocol/messages';
import type { AgentWorkflowInput } from '../../workflows/engine/runtime';
import { waitFor } from '../support/temporal';
import { recordHistory } from '../support/histories';
import { engineSuite } from './support';

/** The poll activities a run scheduled that had not ended when it closed, and how many were cancelled. */
function openPollsAtEnd(events: temporal.api.history.v1.IHistoryEvent[]): {
  stillOpen: number[];
  cancelled: number;
} {
  const polls = new Set<number>();
  let cancelled = 0;
  for (const e of events) {
    const id = Number(e.eventId);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'pollUpdates') polls.add(id);
    const ended =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (ended && polls.delete(Number(ended.scheduledEventId)) && e.activityTaskCanceledEventAttributes)
      cancelled++;
  }
  return { stillOpen: [...polls], cancelled };
}

describe('continue-as-new', () => {
  const suite = engineSuite();

  it('keeps every queued send and waiter across runs when the history threshold is low', async () => {
    const engine = await suite.start({
      windowMs: 4000,
      tuning: { continueAsNewAfterEvents: 150 },
    });
    await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);

    // 30 replies at 12 per window: most of them wait in the queue while runs roll over.
    for (let i = 1; i <= 30; i++) await engine.human(`echo ${i}`);
    await engine.human('quiz');
    const question = await waitFor(
      'the quiz question',
      async () =>
        (await engine.transcript()).sent.find(
          (s) => (s.body as { text?: { body: string } }).text?.body === 'What is your answer?',
        ),
      { timeoutMs: 60_000 },
    ).catch(async (err: Error) => {
      const state = await getAgentState(engine.client, engine.agentKey).catch(String);
      throw new Error(
        `${err.message}\nsent: ${(await engine.sentTexts()).join(',')}\nstate: ${JSON.stringify(state)}`,
      );
    });
    // More history while the quiz waits for its answer (out-of-band sends through the update
    // path), until a run has rolled over with the asked question's waiter in it.
    const askedIn = (await getAgentState(engine.client, engine.agentKey))!.generation;
    let notices = 0;
    while ((await getAgentState(engine.client, engine.agentKey))!.generation <= askedIn) {
      if (notices >= 60) {
        const state = await getAgentState(engine.client, engine.agentKey);
        const stack = await engine.client.workflow.getHandle(engine.agentWorkflowId).query('__stack_trace');
        throw new Error(
          `no run rolled over after ${notices} notices: ${JSON.stringify(state)}\n${String(stack)}`,
        );
      }
      const batch = Array.from({ length: 5 }, () => ++notices);
      const outcomes = await Promise.all(
        batch.map((i) =>
          sendThroughOutbox(engine.client, engine.agentKey, { type: 'text', text: { body: `notice ${i}` } }),
        ),
      );
      expect(outcomes.every((o) => o.ok)).toBe(true);
    }
    await engine.human('42', { id: question.id });
    await waitFor('the quiz answer', async () => (await engine.sentTexts()).includes('answer: 42'), {
      timeoutMs: 60_000,
    });

    const texts = await engine.sentTexts();
    const echoes = texts.filter((t) => /^\d+$/.test(t));
    expect(echoes).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 1)));
    expect(texts.filter((t) => t.startsWith('notice ')).sort()).toEqual(
      Array.from({ length: notices }, (_, i) => `notice ${i + 1}`).sort(),
    );
    expect(texts.filter((t) => t === 'What is your answer?')).toHaveLength(1);
    expect(texts.at(-1)).toBe('answer: 42');
    expect(texts).toHaveLength(30 + 1 + notices + 1);

    // The runs really rolled over, carrying queued sends and the waiter.
    const state = await getAgentState(engine.client, engine.agentKey);
    expect(state!.generation).toBeGreaterThanOrEqual(3);
    const carried: NonNullable<AgentWorkflowInput['carried']>[] = [];
    for await (const run of engine.client.workflow.list({
      query: `WorkflowId = '${engine.agentWorkflowId}'`,
    })) {
      const history = await engine.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
      const input = JSON.parse(Buffer.from(payload.data!).toString()) as AgentWorkflowInput;
      if (input.carried) carried.push(input.carried);
    }
    expect(carried.some((c) => c.queue.length > 0)).toBe(true);
    expect(carried.some((c) => c.replyWaiters.length > 0 && c.nextWaiters.length > 0)).toBe(true);
    await recordHistory(engine.client.workflow.getHandle(engine.agentWorkflowId), 'agent-continued');
  }, 240_000);

  it('ends the open poll before the next run polls: the two never overlap', async () => {
    const engine = await suite.start({ windowMs: 4000, tuning: { continueAsNewAfterEvents: 100 } });
    await engine.startWorker();
    await engine.human('echo before');
    await waitFor('the reply', async () => (await engine.sentTexts()).length === 1);
    // An idle agent with its long poll open, and history growing by signals: the runs roll over
    // while a poll is open.
    const agent = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const runs = async () => {
      let n = 0;
      for await (const run of engine.client.workflow.list({
        query: `WorkflowId = '${engine.agentWorkflowId}'`,
      }))
        if (run.status.name === 'CONTINUED_AS_NEW') n++;
      return n;
    };
    await waitFor(
      'three runs to hand over',
      async () => {
        for (let i = 0; i < 5; i++) await agent.signal(wakeSignal);
        return (await runs()) >= 3;
      },
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    await engine.human('echo after');
    await waitFor('the reply', async () => (await engine.sentTexts()).length === 2);
    let handedOver = 0;
    let pollsCancelled = 0;
    for await (const run of engine.client.workflow.list({
      query: `WorkflowId = '${engine.agentWorkflowId}'`,
    })) {
      if (run.status.name !== 'CONTINUED_AS_NEW') continue;
      handedOver++;
      const history = await engine.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      const open = openPollsAtEnd(history.events ?? []);
      // No poll of a run outlives it: the next run's first poll would overlap it.
      expect(open.stillOpen).toEqual([]);
      pollsCancelled += open.cancelled;
    }
    expect(handedOver).toBeGreaterThanOrEqual(3);
    // (The case arose: runs handed over with a poll open, and waited for it to end.)
    expect(pollsCancelled).toBeGreaterThan(0);
    const polls = (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'updates');
    expect(polls.filter((e) => e.status === 409)).toEqual([]);
  }, 180_000);

  it('polls on while it moves on, so a send being reconciled settles and the run rolls over', async () => {
    // The cluster run's stall: a send failed ambiguously while the run was draining for
    // continue-as-new; its reconciliation ended the quiet poll to get a poll past its fence, and
    // the loop took that cancellation for the hand-over's and stopped: the send waited for that
    // poll, the hand-over for the send, and the agent never polled again.
    const engine = await suite.start({
      windowMs: 2000,
      tuning: { continueAsNewAfterEvents: 150, reconcileSettleMs: 2000 },
    });
    await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);
    const { client, agentKey } = engine;
    const text = (body: string) => ({ type: 'text' as const, text: { body } });
    // The first send is held by the service while the run drains; the second, served while
    // draining (its caller waits), is accepted and its answer lost: settled from the receipts.
    await engine.sim.control.fault({
      agent: agentKey,
      endpoint: 'messages',
      count: 1,
      fault: { kind: 'slow', delayMs: 6000 },
    });
    await engine.sim.control.fault({
      agent: agentKey,
      endpoint: 'messages',
      count: 1,
      fault: { kind: 'drop_after' },
    });
    const held = sendThroughOutbox(client, agentKey, text('held'));
    const reconciled = sendThroughOutbox(client, agentKey, text('reconciled'), { reconcileAmbiguous: true });
    await waitFor('both sends in the outbox', async () => {
      const state = await getAgentState(client, agentKey);
      return state?.sending !== undefined && state.queueLength >= 1;
    });
    const generation = (await getAgentState(client, agentKey))!.generation;
    const agent = client.workflow.getHandle(engine.agentWorkflowId);
    await waitFor(
      'the run to drain with both in flight',
      async () => {
        await agent.signal(wakeSignal);
        return (await getAgentState(client, agentKey))?.draining;
      },
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    // (The held send's own outcome may be ambiguous on a loaded machine: its worker's heartbeat
    // can be late while the service holds it. Either way the service accepted it once.)
    await held;
    const outcome = await Promise.race([
      reconciled,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the reconciled send never settled')), 30_000),
      ),
    ]);
    // Accepted once by the service, settled from its receipt: not sent again.
    expect(outcome.ok).toBe(true);
    await waitFor(
      'the run to move on',
      async () => ((await getAgentState(client, agentKey))?.generation ?? 0) > generation,
    );
    // Each once (in either order: a held send that went ambiguous no longer holds the outbox).
    expect((await engine.sentTexts()).sort()).toEqual(['held', 'reconciled']);
  }, 180_000);
});
