/**
 * Model turns through the bot test harness with a scripted model (the AI SDK's mock): provider
 * errors retried with backoff and, past the last attempt, an apology; long answers split; the
 * typing indicator; tools whose arguments do not fit; a tool running or awaiting approval when
 * the human writes again; the step limit; a cancel while the model thinks; no model at all.
 */
import { DEFAULT_APOLOGY, TOO_MANY_STEPS_TEXT, type ModelTurnOptions } from '../../workflows/index';
import { waitFor } from '../support/temporal';
import {
  createBotTestEnv,
  scriptedModel,
  type BotTestEnv,
  type Script,
  type ScriptStep,
} from '../../testing';

jest.setTimeout(180_000);

const runs = new Map<string, number>();
const started = new Set<string>();
async function count({ label, slowMs }: { label: string; slowMs?: number }) {
  started.add(label);
  if (slowMs) await new Promise((r) => setTimeout(r, slowMs));
  runs.set(label, (runs.get(label) ?? 0) + 1);
  return { label, runs: runs.get(label) };
}

let bot: BotTestEnv;
async function start(script: Script | undefined, config: ModelTurnOptions = {}, timeSkipping = true) {
  runs.clear();
  started.clear();
  const model = script ? scriptedModel(script) : undefined;
  bot = await createBotTestEnv({
    workflows: require.resolve('./bots/model-bot'),
    config,
    activities: { count },
    timeSkipping,
    ...(model ? { model } : {}),
  });
  return model!;
}
afterEach(async () => {
  await bot?.teardown();
});

/** When each call reached the model (real ms), to see the backoff between attempts. */
function timed(steps: ScriptStep[]): { script: Script; at: number[] } {
  const at: number[] = [];
  const script: Script = (_call, i) => {
    at.push(Date.now());
    return steps[Math.min(i, steps.length - 1)];
  };
  return { at, script };
}
const gaps = (at: number[]) => at.slice(1).map((t, i) => t - at[i]);

describe('provider errors', () => {
  it('retries 429s with backoff (Retry-After first), then answers', async () => {
    const { script, at } = timed([{ error: 429 }, { error: 429, retryAfter: 2 }, { text: 'Here I am.' }]);
    await start(script, { backoff: '300ms' }, false);
    await bot.say('hello?');
    await bot.expectBot('Here I am.', { timeoutMs: 30_000 });
    expect(at).toHaveLength(3);
    const [first, second] = gaps(at);
    expect(first).toBeGreaterThanOrEqual(250);
    expect(second).toBeGreaterThanOrEqual(1900);
  });

  it('gives up on 500s after its attempts, waiting longer each time, and apologises', async () => {
    const { script, at } = timed([{ error: 500 }]);
    // The dev server fires a retry a second late at best: the backoff starts at 1 s to be seen.
    await start(script, { attempts: 3, backoff: '1 second' }, false);
    await bot.say('hello?');
    await bot.expectBot(DEFAULT_APOLOGY, { timeoutMs: 30_000 });
    await bot.expectBot('turn failed: ModelUnavailable');
    expect(at).toHaveLength(3);
    const [first, second] = gaps(at);
    expect(first).toBeGreaterThanOrEqual(900);
    expect(second).toBeGreaterThanOrEqual(1900);
  });

  it('times a hanging call out, tries again, then apologises', async () => {
    const model = await start(
      [{ hang: true }, { hang: true }],
      { attempts: 2, timeout: '1 second', backoff: '100ms' },
      false,
    );
    await bot.say('hello?');
    await bot.expectBot(DEFAULT_APOLOGY, { timeoutMs: 30_000 });
    await bot.expectBot(/^turn failed: /);
    expect(model.calls).toHaveLength(2);
  });

  it('does not retry a refusal (401): one call, then the apology', async () => {
    const model = await start([{ error: 401 }, { text: 'never' }], { apology: 'My model is not working.' });
    await bot.say('hello?');
    await bot.expectBot('My model is not working.');
    await bot.expectBot('turn failed: ModelRefused');
    expect(model.calls).toHaveLength(1);
  });
});

it('splits a long answer at paragraph ends, each part within 4096 characters', async () => {
  const paragraph = (n: number) => `Paragraph ${n}. ${'word '.repeat(300).trim()}.`;
  const long = Array.from({ length: 6 }, (_, i) => paragraph(i + 1)).join('\n\n');
  await start([{ text: long }]);
  await bot.say('tell me everything');
  const parts = [
    await bot.expectBot(/^Paragraph 1\./),
    await bot.expectBot(/^Paragraph 3\./),
    await bot.expectBot(/^Paragraph 5\./),
  ];
  expect(parts.map((p) => p.text!.length).every((n) => n <= 4096)).toBe(true);
  expect(parts.map((p) => p.text).join('\n\n')).toBe(long);
});

it('shows the typing indicator while the model thinks', async () => {
  const model = await start([{ text: 'Thought about it.', delayMs: 1500 }]);
  await bot.say('think');
  await model.called(1);
  await bot.expectBot('Thought about it.');
  expect(
    (await bot.simulator.control.transcript({ agent: bot.agentKey })).counts.requests.typing,
  ).toBeGreaterThanOrEqual(1);
});

it('runs nothing for arguments that do not fit the schema, and tells the model why', async () => {
  const model = await start([{ tool: 'count', input: { label: '' } }, { text: 'Fixed.' }]);
  await bot.say('count');
  await bot.expectBot('Fixed.');
  expect(model.calls[1].toolResults[0]).toMatchObject({
    name: 'count',
    isError: true,
    output: /^Invalid arguments \(label: /,
  });
  expect(runs.size).toBe(0);
});

it('interrupted while a tool runs: it finishes once, and the same call again is not run again', async () => {
  const slow = { tool: 'count', input: { label: 'a', slowMs: 3000 } };
  const model = await start([slow, slow, { text: 'Counted once.' }]);
  await bot.say('count a');
  await waitFor('the tool to run', () => started.has('a'));
  await bot.say('and quickly');
  await bot.expectBot('Counted once.');
  expect(runs.get('a')).toBe(1);
  expect(model.calls[1].userTexts).toEqual(['count a', 'and quickly']);
  expect(model.calls[2].toolResults.map((r) => r.output)).toEqual([
    { label: 'a', runs: 1 },
    { label: 'a', runs: 1 },
  ]);
});

it('interrupted while an approval waits: the approval is cancelled, nothing runs', async () => {
  const model = await start([{ tool: 'confirmCount', input: { label: 'b' } }, { text: 'Not counted.' }]);
  await bot.say('count b');
  await bot.expectBot(/^Approval needed: Run confirmCount with label: "b"\?/);
  await bot.say('no wait, do not');
  await bot.expectBot(/^Approval cancelled: Run confirmCount/);
  await bot.expectBot('Not counted.');
  expect(model.calls[1].toolResults[0].output).toMatch(/wrote again before answering/);
  expect([...runs]).toEqual([]);
});

it('the approval tool asks the human and tells the model the decision', async () => {
  const model = await start([
    { tool: 'askApproval', input: { question: 'Shall I go on?' } },
    { text: 'Going on.' },
  ]);
  await bot.say('go on?');
  await bot.react(await bot.expectBot(/^Approval needed: Shall I go on\?/), '👍');
  await bot.expectBot('Approved: Shall I go on?');
  await bot.expectBot('Going on.');
  expect(model.calls[1].toolResults).toEqual([
    { name: 'askApproval', output: { decision: 'approved' }, isError: false },
  ]);
});

it('stops after maxSteps model calls', async () => {
  await start(() => ({ tool: 'count', input: { label: 'loop' } }), { maxSteps: 3 });
  await bot.say('loop');
  await bot.expectBot(TOO_MANY_STEPS_TEXT);
  expect(runs.get('loop')).toBe(1);
});

it('a cancel while the model thinks ends the turn', async () => {
  const model = await start([{ text: 'too late', delayMs: 3000 }]);
  await bot.say('think hard');
  await model.called(1);
  await bot.say('cancel');
  await bot.expectBot('Cancelled assistant.');
  await bot.expectBot('turn cancelled');
});

it('without a model, a turn sends nothing, shows no typing, and says so', async () => {
  await start(undefined);
  await bot.say('hello?');
  await bot.expectBot('no model');
  const { counts } = await bot.simulator.control.transcript({ agent: bot.agentKey });
  expect([counts.requests.typing, counts.accepted]).toEqual([0, 1]);
});
