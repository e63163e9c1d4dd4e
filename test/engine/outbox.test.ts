import type { Client } from '@temporalio/client';
import { InvalidAgentKeyError, ensureAgent, getAgentState, sendThroughOutbox } from '../../client/agents';
import { waitFor } from '../support/temporal';
import { engineSuite, failureTypeOf } from './support';

describe('the outbox at its edges', () => {
  const suite = engineSuite();

  it('answers a malformed send request with SendInvalid instead of leaving its requester waiting', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    const id = await engine.human('probe-malformed');
    expect(await failureTypeOf(engine, id)).toBe('SendInvalid');
    expect(await engine.sentTexts()).toEqual([]);
  });

  it('costs no workflow task while idle: no outbox timer, only polls', async () => {
    // A short ordering grace makes the old behaviour (waking every grace period) visible at once.
    const engine = await suite.start({ windowMs: 2000, tuning: { orderingGraceMs: 500 } });
    await engine.startWorker();
    await engine.human('echo warm up');
    await waitFor('the reply', async () => (await engine.sentTexts()).length === 1, { timeoutMs: 30_000 });
    // The reply's receipts come in a page of their own (followed by the receipt settle's timer):
    // idle starts after them, two polls on.
    const pollsAtReply = (await engine.transcript()).counts.requests.updates;
    await waitFor(
      'the receipts to be polled',
      async () => (await engine.transcript()).counts.requests.updates >= pollsAtReply + 2,
      { timeoutMs: 30_000 },
    );
    const agent = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const timersNow = async () =>
      (await agent.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes).length;
    const before = await timersNow();
    const pollsBefore = (await engine.transcript()).counts.requests.updates;
    // Idle for at least three long polls (2 s each in the engine suites).
    await waitFor(
      'three idle polls',
      async () => (await engine.transcript()).counts.requests.updates >= pollsBefore + 3,
      { timeoutMs: 30_000 },
    );
    expect(await timersNow()).toBe(before);
  });

  it('validates the agent key before anything reaches Temporal', async () => {
    const client = {} as Client; // never touched: the key is refused first
    for (const bad of ['', 'has space', 'a:b', 'x'.repeat(101), '-leading']) {
      await expect(ensureAgent(client, { agentKey: bad, taskQueue: 'q' })).rejects.toBeInstanceOf(
        InvalidAgentKeyError,
      );
      await expect(
        sendThroughOutbox(client, bad, { type: 'text', text: { body: 'x' } }),
      ).rejects.toBeInstanceOf(InvalidAgentKeyError);
      await expect(getAgentState(client, bad)).rejects.toBeInstanceOf(InvalidAgentKeyError);
    }
  });
});
