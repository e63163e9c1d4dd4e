/**
 * A late answer (a message quoting a question whose wait timed out) goes to the conversation
 * that asked, never to a new handler as if it were new: to its `onLate` while it runs, else the
 * agent answers that the question has expired.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { EXPIRED_QUESTION_TEXT } from '../../workflows';
import { waitFor } from '../support/temporal';
import { engineSuite, type Engine } from './support';

type Sent = Awaited<ReturnType<Engine['transcript']>>['sent'][number];
const body = (s: Sent) => (s.body as { text?: { body?: string } }).text?.body;
const quoted = (s: Sent) => (s.body as { context?: { message_id?: string } }).context?.message_id;

async function askedAndTimedOut(engine: Engine, command: string): Promise<Sent> {
  await engine.human(command);
  await waitFor('the question to time out', async () => (await engine.sentTexts()).includes('too slow'), {
    timeoutMs: 30_000,
  });
  return (await engine.transcript()).sent.find((s) => body(s) === 'Quick question?')!;
}

async function expectNoHandlerFor(engine: Engine, messageId: string): Promise<void> {
  await expect(
    engine.client.workflow.getHandle(engine.handlerWorkflowId(messageId)).describe(),
  ).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

describe('late answers', () => {
  const suite = engineSuite();

  it('tells a late answer the question has expired once the conversation has ended, without a new handler', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    const question = await askedAndTimedOut(engine, 'quickquiz');
    const late = await engine.human('my late answer', { id: question.id });
    const answer = await waitFor(
      'the expired notice',
      async () => (await engine.transcript()).sent.find((s) => body(s) === EXPIRED_QUESTION_TEXT),
      { timeoutMs: 30_000 },
    );
    expect(quoted(answer)).toBe(late);
    await expectNoHandlerFor(engine, late);
    // Nothing else was said about it: no help text, no echo.
    expect(await engine.sentTexts()).toEqual(['Quick question?', 'too slow', EXPIRED_QUESTION_TEXT]);
  });

  it('hands a late answer to the running conversation’s onLate, without a new handler', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    const question = await askedAndTimedOut(engine, 'slowquiz');
    const late = await engine.human('better late', { id: question.id });
    const answer = await waitFor(
      'the onLate reply',
      async () => (await engine.transcript()).sent.find((s) => body(s) === 'late: better late'),
      { timeoutMs: 30_000 },
    );
    expect(quoted(answer)).toBe(late);
    await expectNoHandlerFor(engine, late);
    // A message that quotes nothing is still new: it gets its own handler.
    await engine.human('echo fresh');
    await waitFor('the echo', async () => (await engine.sentTexts()).includes('fresh'));
  });
});
