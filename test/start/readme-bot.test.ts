/**
 * The bot in the README's "Writing a bot" section runs as written (the long tier: a real worker
 * process): the worker bundles it itself (AMSFLOW_WORKFLOWS) and holds the signup conversation
 * with a human, each question in answer to the human's message. Its type check and its test through
 * the harness are test/docs/readme-example.test.ts's (the main tier).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeBlock } from '../docs/readme-blocks';
import { engineSuite } from '../engine/support';
import { waitFor } from '../support/temporal';

describe('the README bot example, in a worker process', () => {
  const suite = engineSuite();
  const file = join(mkdtempSync(join(tmpdir(), 'amsflow-readme-')), 'my-bot.ts');

  beforeAll(() => writeFileSync(file, readmeBlock('## Writing a bot')));

  it('runs as written: the worker bundles it and the signup conversation completes', async () => {
    const engine = await suite.start({ windowMs: 2000, workflows: file });
    await engine.startWorker();
    const last = async () => (await engine.transcript()).sent.at(-1);
    const text = (s: { body: unknown } | undefined) => (s?.body as { text?: { body?: string } })?.text?.body;

    const signup = await engine.human('signup');
    const q1 = await waitFor(
      'the name question',
      async () => (text(await last()) === 'What is your name?' ? last() : undefined),
      { timeoutMs: 60_000 },
    );
    expect((q1.body as { context?: { message_id: string } }).context?.message_id).toBe(signup);
    await engine.human('Ada');
    await waitFor('the email question', async () => text(await last()) === 'What is your email?');
    const email = await engine.human('ada@example.com');
    const done = await waitFor('the confirmation', async () => {
      const sent = await last();
      return text(sent)?.startsWith('Thanks') ? sent : undefined;
    });
    expect(text(done)).toBe('Thanks Ada, registered ada@example.com');
    expect((done.body as { context?: { message_id: string } }).context?.message_id).toBe(email);
  }, 180_000);
});
