/**
 * The examples of workflows/README.md, as written: every ts block type-checks against
 * `amsflow/workflows` and bundles as a worker would bundle it (with no re-export of amsflow's own
 * workflows); the guide's bot holds its conversation through the bot test harness.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { bundleBot } from '../../worker/bot-bundle';
import { createBotTestEnv } from '../../testing';

const root = resolve(__dirname, '..', '..');
const blocks = [
  ...readFileSync(join(root, 'workflows', 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((m) => m[1]);
// Inside the project, as a bot's files would be: `@temporalio/workflow` and `zod` resolve.
mkdirSync(join(root, 'test-artifacts'), { recursive: true });
const dir = mkdtempSync(join(root, 'test-artifacts', 'workflows-readme-'));
const files = blocks.map((code, i) => {
  const file = join(dir, `example-${i}.ts`);
  writeFileSync(file, code);
  return file;
});

/** One program for every example (a program each cost seconds apiece); each file's own errors. */
let program: ts.Program | undefined;
function typeErrors(file: string): string[] {
  if (!program) {
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    program = ts.createProgram(files, { ...options, rootDir: undefined, noEmit: true, types: [] });
  }
  const diagnostics = [
    ...program.getGlobalDiagnostics(),
    ...ts.getPreEmitDiagnostics(program, program.getSourceFile(file)),
  ];
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

jest.setTimeout(120_000);

describe('workflows/README.md examples', () => {
  it('has its examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  it.each(files.map((f, i) => [i, f] as const))('example %i type-checks and bundles', async (_i, file) => {
    expect(typeErrors(file)).toEqual([]);
    // As the worker bundles it: the module has its handler, amsflow adds its own workflows.
    const { code } = await bundleBot({ workflowsPath: file });
    expect(code).toContain('agentWorkflow');
  });

  it('the guide’s bot runs as written: two questions, a re-ask, then the manager’s signal', async () => {
    const bot = await createBotTestEnv({ workflows: files[0] });
    try {
      const started = await bot.say('hello');
      await bot.expectBot('What would you like?');
      await bot.say('tea');
      await bot.expectBot('How many?');
      await bot.say('twelve');
      await bot.expectBot(/How many\?$/);
      await bot.say('2');
      await bot.expectBot('2 × tea: shall I order?');
      await bot.client.workflow.getHandle(`agent:${bot.agentKey}:msg:${started}`).signal('approve', 'Grace');
      await bot.expectBot('Approved by Grace.');
    } finally {
      await bot.teardown();
    }
  });
});
