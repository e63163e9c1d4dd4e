/**
 * The reference bot's signup survives a worker SIGKILLed between its two questions: the name
 * given while no worker runs is taken once, the conversation resumes at the email question, and
 * it finishes once.
 */
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

describe('signup across a worker kill', () => {
  const suite = engineSuite();

  it('resumes at the right step and finishes once', async () => {
    const engine = await suite.start({
      windowMs: 1000,
      workflows: require.resolve('../../examples/reference/bot'),
    });
    let worker = await engine.startWorker();
    const sentTexts = () => engine.sentTexts();
    const saw = (text: string) =>
      waitFor(`the bot to say "${text}"`, async () => (await sentTexts()).some((t) => t.includes(text)), {
        timeoutMs: 60_000,
      });

    await engine.human('signup');
    await saw('What is your name?');
    await worker.kill();
    await engine.human('Ada');
    worker = await engine.startWorker();
    await saw('Thanks, Ada. What is your email?');
    await worker.kill();
    worker = await engine.startWorker();
    await engine.human('ada@example.com');
    await saw('Thanks Ada, registered ada@example.com.');

    const texts = await sentTexts();
    expect(texts).toEqual([
      'What is your name?',
      'Thanks, Ada. What is your email?',
      'Thanks Ada, registered ada@example.com.',
    ]);
    // One handler (signup) and it completed; the name and the email were its answers, not new handlers.
    const handlers: string[] = [];
    for await (const wf of engine.client.workflow.list({
      query: `WorkflowId STARTS_WITH "agent:${engine.agentKey}:msg:"`,
    })) {
      handlers.push(wf.workflowId);
    }
    expect(handlers).toHaveLength(1);
    await expect(engine.client.workflow.getHandle(handlers[0]).result()).resolves.toBeUndefined();
  });
});
