/**
 * A model turn across a worker SIGKILL: the model asked for a tool that needs approval, the
 * question is in the chat, the worker is killed, the human approves while no worker runs, and a
 * new worker finishes the turn. The question was asked once, the tool ran once, the model got its
 * result and the human the answer. Real worker processes (worker/main.ts) with the assistant
 * example, a scripted model module and activities that write to a file.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

jest.setTimeout(240_000);

describe('a model turn across a worker kill', () => {
  const suite = engineSuite();

  it('asks once, and the approved tool runs exactly once', async () => {
    const bookings = join(mkdtempSync(join(tmpdir(), 'amsflow-bookings-')), 'bookings.jsonl');
    const engine = await suite.start({
      windowMs: 1000,
      workflows: require.resolve('../../examples/assistant/bot'),
      env: {
        AMSFLOW_MODEL_MODULE: require.resolve('./assistant-model'),
        AMSFLOW_ACTIVITIES: require.resolve('./assistant-activities'),
        AMSFLOW_TEST_BOOKINGS: bookings,
      },
    });
    let worker = await engine.startWorker();
    const asked = await engine.human('Book Luigi for two on Friday');
    const question = await waitFor(
      'the approval question',
      async () =>
        (await engine.transcript()).sent.find((s) =>
          JSON.stringify(s.body).includes('Approval needed: Book Luigi'),
        ),
      { timeoutMs: 60_000 },
    );
    await worker.kill();
    await engine.human('yes', { id: question.id });
    worker = await engine.startWorker();
    await waitFor('the answer', async () => (await engine.sentTexts()).some((t) => t.startsWith('Done:')), {
      timeoutMs: 90_000,
    });
    const texts = await engine.sentTexts();
    expect(texts.filter((t) => t.startsWith('Approval needed: Book Luigi'))).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('Approved: Book Luigi'))).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('Done:'))).toEqual(['Done: {"booked":true}']);
    const runs = existsSync(bookings) ? readFileSync(bookings, 'utf8').trim().split('\n') : [];
    expect(runs).toHaveLength(1);
    expect(JSON.parse(runs[0])).toMatchObject({ restaurant: 'Luigi', day: 'Friday', people: 2 });
    await engine.client.workflow.getHandle(engine.handlerWorkflowId(asked)).result();
  });
});
