/**
 * A human who floods the agent (issue 23, found 8): past the inbound budget, new messages are
 * marked read and not handled, the human is told once, and `amsflow state` counts them; the
 * messages within the budget are answered. A real worker process on the dev server.
 */
import { FLOOD_TEXT } from '../../workflows/engine/handlers';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

describe('a flood of new messages', () => {
  const suite = engineSuite();

  it('answers the budget, tells the human once, marks the rest read unhandled', async () => {
    const engine = await suite.start({
      windowMs: 2000,
      tuning: { inboundBudget: 3, inboundBudgetWindowMs: 60_000 },
    });
    await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await engine.human(`echo flood ${i}`));
    await waitFor('every message marked read', async () =>
      (await engine.transcript()).inbound.every((m) => m.markedRead),
    );
    await waitFor('three echoes and the notice', async () => (await engine.sentTexts()).length >= 4);
    const texts = await engine.sentTexts();
    expect(texts.filter((t) => t === FLOOD_TEXT)).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('flood '))).toEqual(['flood 0', 'flood 1', 'flood 2']);
    const state = await engine.client.workflow
      .getHandle(engine.agentWorkflowId)
      .query<{ dropped: { flood: number } }>('amsflow.state');
    expect(state.dropped.flood).toBe(5);
    // No handler started for the dropped ones.
    const started = await Promise.all(
      ids.map((id) =>
        engine.client.workflow
          .getHandle(engine.handlerWorkflowId(id))
          .describe()
          .then(
            () => true,
            () => false,
          ),
      ),
    );
    expect(started).toEqual([true, true, true, false, false, false, false, false]);
  });
});
