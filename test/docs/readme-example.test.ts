/**
 * The bot in the README's "Writing a bot" section, taken from README.md as written: it
 * type-checks against `amsflow/workflows` in a fresh clone (no build), and a real worker
 * process bundles it itself (AMSFLOW_WORKFLOWS) and holds the signup conversation with a human.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as ts from 'typescript';
import { waitFor } from '../support/temporal';
import { engineSuite } from '../engine/support';

const root = resolve(__dirname, '..', '..');

/** The first ts block after `heading` in README.md. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`README.md has no ts block under "${heading}"`);
  return block[1];
}

const readmeBot = () => readmeBlock('## Writing a bot');

function typeErrors(file: string, types: string[] = []): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram([file], { ...options, rootDir: undefined, noEmit: true, types });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the README bot example', () => {
  const suite = engineSuite();
  const file = join(mkdtempSync(join(tmpdir(), 'amsflow-readme-')), 'my-bot.ts');

  beforeAll(() => writeFileSync(file, readmeBot()));

  describe('its test, from "Testing a bot", as written (with the harness)', () => {
    const testFile = join(dirname(file), 'my-bot.test.ts');
    writeFileSync(file, readmeBot());
    writeFileSync(testFile, readmeBlock('### Testing a bot'));
    it('type-checks', () => {
      expect(typeErrors(testFile, ['jest', 'node'])).toEqual([]);
    });
    // Registers the README's own `test(...)` in this suite.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the README's test file, loaded as jest would
    require(testFile);
  });

  it('imports amsflow/workflows and type-checks as written, without a build', () => {
    expect(readmeBot()).toContain("from 'amsflow/workflows'");
    expect(typeErrors(file)).toEqual([]);
  });

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
