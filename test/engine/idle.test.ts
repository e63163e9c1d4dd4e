/**
 * Quiet polling: an idle agent keeps long-polling inside one poll activity, so its workflow runs
 * no workflow task per long poll; a message still wakes it at once, and its polls stay within the
 * updates limit. Scaled: 1 s long polls, an 8 s quiet period.
 */
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

const WINDOW_MS = 6000;

describe('an idle agent (quiet polling)', () => {
  const suite = engineSuite();

  it('runs no workflow task per empty long poll, answers a message at once, and keeps the poll limit', async () => {
    const engine = await suite.start({
      windowMs: WINDOW_MS,
      tuning: { pollTimeoutSeconds: 1, quietPollMs: 15_000 },
    });
    await engine.startWorker();
    await engine.human('echo first');
    await waitFor('the first echo', async () => (await engine.sentTexts()).includes('first'));
    const handle = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const polls = async () =>
      (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'updates');
    // Let the receipts settle, then watch an idle stretch of several long polls.
    await waitFor('an empty long poll', async () => (await polls()).some((e) => e.status === 204), {
      timeoutMs: 20_000,
    });
    const eventsBefore = (await handle.describe()).historyLength;
    const pollsBefore = (await polls()).length;
    await waitFor('five more long polls', async () => (await polls()).length >= pollsBefore + 5, {
      timeoutMs: 30_000,
    });
    const eventsAfter = (await handle.describe()).historyLength;
    // Five empty polls cost at most one poll activity's return (about 5 events), not 5 × 6.
    expect(eventsAfter - eventsBefore).toBeLessThanOrEqual(8);

    // A message during a quiet poll is picked up at once and answered.
    const wrote = Date.now();
    await engine.human('echo second');
    await waitFor('the second echo', async () => (await engine.sentTexts()).includes('second'));
    expect(Date.now() - wrote).toBeLessThan(5000);

    // Every poll request kept the limit (15 in any scaled window), and none was refused.
    const all = await polls();
    expect(all.filter((e) => e.status === 429)).toEqual([]);
    for (const e of all) {
      expect(all.filter((o) => o.at > e.at - WINDOW_MS && o.at <= e.at).length).toBeLessThanOrEqual(15);
    }
  });
});
