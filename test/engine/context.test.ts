/**
 * What a handler gets besides its message: the bot's configuration from the worker
 * (AMSFLOW_BOT_CONFIG), its own activities (AMSFLOW_ACTIVITIES), and release(), which lets
 * later replies go before its first one.
 */
import { resolve } from 'node:path';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

describe('handler context', () => {
  const suite = engineSuite();

  it('hands the worker’s bot configuration to handlers, which call the bot’s own activities', async () => {
    const engine = await suite.start({
      windowMs: 2000,
      env: {
        AMSFLOW_BOT_CONFIG: JSON.stringify({ greeting: 'Hej' }),
        AMSFLOW_ACTIVITIES: resolve(__dirname, 'bot-activities.ts'),
      },
    });
    await engine.startWorker();
    await engine.human('greet Ada');
    await waitFor('the greeting', async () => (await engine.sentTexts()).includes('HEJ ADA!'), {
      timeoutMs: 30_000,
    });
    // In the agent's history once (its start event), not once per call.
    const history = await engine.client.workflow.getHandle(engine.agentWorkflowId).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    expect(JSON.parse(Buffer.from(started.data!).toString()).botConfig).toEqual({ greeting: 'Hej' });
  });

  it('lets later replies go first once a handler releases its turn', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await engine.human('sleepy');
    await engine.human('echo quick');
    await waitFor('both replies', async () => (await engine.sentTexts()).length === 2, { timeoutMs: 30_000 });
    // Without the release, "quick" would wait for "awake" (its handler held the first turn).
    expect(await engine.sentTexts()).toEqual(['quick', 'awake']);
  });
});
