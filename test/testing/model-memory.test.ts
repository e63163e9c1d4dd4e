/**
 * An agent's model memory (`memory:<agentKey>`), through the bot test harness with a scripted
 * model: a turn is shown the turns before it; the memory keeps the newest whole turns within its
 * bounds; `amsflow conversations show memory:<agent>` shows it and `amsflow conversations forget`
 * empties it (the CLI against the harness's server); and it is carried across continue-as-new.
 */
import type { Connection } from '@temporalio/client';
import { forgetMemory, readMemory } from '../../client/memory';
import {
  MEMORY_WORKFLOW_TYPE,
  memoryCommandSignal,
  memoryQuery,
  memoryWorkflowId,
  type MemoryInput,
} from '../../protocol/models';
import { createBotTestEnv, scriptedModel, type BotTestEnv, type ScriptedModel } from '../../testing';
import { run } from '../client/cli-runner';

jest.setTimeout(180_000);

let bot: BotTestEnv;
let model: ScriptedModel;
afterEach(async () => {
  await bot?.teardown();
});

/** A model that answers "A<n>" to the n-th call. */
async function start(config: object = {}): Promise<void> {
  model = scriptedModel((_call, i) => ({ text: `A${i + 1}` }));
  bot = await createBotTestEnv({ workflows: require.resolve('./bots/model-bot'), model, config });
}

async function turn(text: string, answer: string): Promise<void> {
  await bot.say(text);
  await bot.expectBot(answer);
}

it('shows a turn the turns before it, and the CLI shows and forgets them', async () => {
  await start();
  await turn('Q1', 'A1');
  await turn('Q2', 'A2');
  expect(model.calls[1].messages.map((m) => `${m.role}:${m.text}`)).toEqual([
    'user:Q1',
    'assistant:A1',
    'user:Q2',
  ]);
  const env = {
    TEMPORAL_ADDRESS: (bot.client.connection as Connection).options.address,
    AMSFLOW_AGENT: bot.agentKey,
  };
  const shown = await run(['conversations', 'show', memoryWorkflowId(bot.agentKey)], env);
  expect(shown.code).toBe(0);
  const view = JSON.parse(shown.out) as { name: string; memory: { turns: { messages: unknown[] }[] } };
  expect(view.name).toBe('model memory');
  expect(view.memory.turns.map((t) => t.messages)).toEqual([
    [
      { role: 'user', text: 'Q1' },
      { role: 'assistant', text: 'A1' },
    ],
    [
      { role: 'user', text: 'Q2' },
      { role: 'assistant', text: 'A2' },
    ],
  ]);
  const forgot = await run(['conversations', 'forget'], env);
  expect([forgot.code, JSON.parse(forgot.out)]).toEqual([0, { agentKey: bot.agentKey, forgotten: 2 }]);
  await turn('Q3', 'A3');
  expect(model.calls[2].userTexts).toEqual(['Q3']);
  expect(await readMemory(bot.client, bot.agentKey)).toMatchObject({ forgotten: 2, dropped: 0 });
});

it('keeps the newest whole turns within its bounds, counting what it dropped', async () => {
  await start({ memory: { turns: 2 } });
  for (let i = 1; i <= 4; i++) await turn(`Q${i}`, `A${i}`);
  expect(model.calls[3].userTexts).toEqual(['Q2', 'Q3', 'Q4']);
  const memory = await readMemory(bot.client, bot.agentKey);
  expect(memory?.turns.map((t) => t.messages[0])).toEqual([
    { role: 'user', text: 'Q3' },
    { role: 'user', text: 'Q4' },
  ]);
  expect(memory).toMatchObject({ dropped: 2, limits: { turns: 2 } });
});

it('a turn with memory off is shown nothing before it and keeps nothing', async () => {
  await start({ memory: false });
  await turn('Q1', 'A1');
  await turn('Q2', 'A2');
  expect(model.calls[1].userTexts).toEqual(['Q2']);
  expect(await readMemory(bot.client, bot.agentKey)).toBeUndefined();
  expect(await forgetMemory(bot.client, bot.agentKey)).toEqual({ agentKey: bot.agentKey, forgotten: 0 });
});

it('carries its turns across continue-as-new, and a repeated append is taken once', async () => {
  await start();
  const workflowId = memoryWorkflowId(bot.agentKey);
  const input: MemoryInput = { agentKey: bot.agentKey, continueAfterEvents: 40 };
  const append = (n: number) => ({
    op: 'append' as const,
    turn: { id: `t${n}`, at: n, messages: [{ role: 'user' as const, text: `Q${n}` }] },
    limits: { turns: 100, bytes: 64 * 1024 },
  });
  const handle = await bot.client.workflow.signalWithStart(MEMORY_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: bot.taskQueue,
    args: [input],
    signal: memoryCommandSignal,
    signalArgs: [append(1)],
  });
  const firstRun = handle.signaledRunId;
  for (let n = 2; n <= 60; n++) await handle.signal(memoryCommandSignal, append(n));
  await handle.signal(memoryCommandSignal, append(7));
  const view = await handle.query(memoryQuery);
  expect(view.turns.map((t) => t.id)).toEqual(Array.from({ length: 60 }, (_, i) => `t${i + 1}`));
  expect((await bot.client.workflow.getHandle(workflowId).describe()).runId).not.toBe(firstRun);
});
