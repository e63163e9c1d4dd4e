import { HELP_TEXT } from '../../examples/reference/bot';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

describe('reference bot on the engine', () => {
  const suite = engineSuite();

  it('answers "echo <text>" with <text> quoting the message, and anything else with the help', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    const echoId = await engine.human('echo hello world');
    const transcript = await waitFor('the echo reply', async () => {
      const t = await engine.transcript();
      return t.sent.length >= 1 && t;
    });
    expect(transcript.sent[0].body).toMatchObject({
      to: engine.creator,
      type: 'text',
      text: { body: 'hello world' },
      context: { message_id: echoId },
    });
    await engine.human('what can you do?');
    await waitFor('the help reply', async () => (await engine.sentTexts()).length >= 2);
    expect(await engine.sentTexts()).toEqual(['hello world', HELP_TEXT]);
    // Both inbound messages are marked read once handed off.
    await waitFor('both messages marked read', async () =>
      (await engine.transcript()).inbound.every((m) => m.markedRead),
    );
  });

  it('delivers receipts to the workflow that sent the message', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await engine.human('receipt');
    const watched = await waitFor('the watched message', async () =>
      (await engine.transcript()).sent.find(
        (s) => (s.body as { text: { body: string } }).text.body === 'watch me',
      ),
    );
    // The handler is still waiting: the human has not read it yet.
    expect(await engine.sentTexts()).toEqual(['watch me']);
    await engine.sim.control.read({ id: watched.id, agent: engine.agentKey });
    await waitFor('the handler to see the read receipt', async () => (await engine.sentTexts()).length === 2);
    expect(await engine.sentTexts()).toEqual(['watch me', 'seen it']);
  });
});
