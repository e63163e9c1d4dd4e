/**
 * Mistakes in a handler fail fast, through the bot test harness:
 * - a duration typo (`timeout: '1 dya'`) fails the handler once with `InvalidOption`, before the
 *   question is sent, and the running test fails at once with the message;
 * - a bug (a property of undefined) fails the handler's workflow task, which Temporal retries:
 *   the test fails at once with the workflow id and the message, the harness's log shows it
 *   once however often it is retried, and `conversations show|list` report it.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { listConversations, showConversation } from '../../client/conversations';
import { handlerWorkflowId } from '../../protocol/agent';
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import { waitFor } from '../support/temporal';

jest.setTimeout(300_000);

const BOT = require.resolve('./bots/mistakes-bot');
/** expectBot's patience in these tests: a failure must be reported long before it. */
const EXPECT_MS = 120_000;

async function rejectionOf(promise: Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const start = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error: error as Error, ms: Date.now() - start };
  }
  throw new Error('expected a rejection');
}

describe('a duration typo (time skipping)', () => {
  let bot: BotTestEnv;
  beforeAll(async () => {
    bot = await createBotTestEnv({ workflows: BOT });
  });
  afterAll(async () => {
    await bot?.teardown();
  });

  it('throws InvalidOption at the call: nothing is asked, the handler fails once, the test at once', async () => {
    const messageId = await bot.say('typo');
    const { error, ms } = await rejectionOf(bot.expectBot('Which day?', { timeoutMs: EXPECT_MS }));
    expect(error.message).toMatch(/failed: ask: timeout "1 dya" is not a duration/);
    expect(ms).toBeLessThan(EXPECT_MS / 4);

    const handle = bot.client.workflow.getHandle(handlerWorkflowId(bot.agentKey, messageId));
    const failure = await handle.result().then(
      () => undefined,
      (err: unknown) => (err instanceof WorkflowFailedError ? err.cause : err),
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'InvalidOption', nonRetryable: true });
    expect((failure as ApplicationFailure).details?.[0]).toEqual({
      function: 'ask',
      option: 'timeout',
      value: '"1 dya"',
    });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
    expect(events.filter((e) => e.workflowExecutionFailedEventAttributes)).toHaveLength(1);
    expect((await bot.transcript()).filter((m) => m.from === 'bot')).toEqual([]);
  });
});

describe('a bug in a handler (dev server)', () => {
  let bot: BotTestEnv;
  const logged: string[] = [];
  let restore: () => void;
  beforeAll(async () => {
    // What the harness's logger writes (it writes to stderr), read as it goes by.
    const write = process.stderr.write.bind(process.stderr);
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation(((chunk: string, ...rest: []) => {
      logged.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write);
    restore = () => spy.mockRestore();
    bot = await createBotTestEnv({ workflows: BOT, timeSkipping: false });
  });
  afterAll(async () => {
    await bot?.teardown();
    restore?.();
  });

  it('fails the test at once, logs it once however often it is retried, and conversations report it', async () => {
    const messageId = await bot.say('bug');
    const workflowId = handlerWorkflowId(bot.agentKey, messageId);
    const message = "Cannot read properties of undefined (reading 'here')";
    const { error, ms } = await rejectionOf(bot.expectBot('ok bug', { timeoutMs: EXPECT_MS }));
    expect(error.message).toContain(
      `workflow ${workflowId} (onMessage) failed its workflow task: ${message}`,
    );
    expect(error.message).toMatch(/at .*mistakes-bot\.ts:\d+:\d+/);
    expect(ms).toBeLessThan(EXPECT_MS / 4);

    // Retried: the third attempt is pending, and the core's line of each attempt has come by.
    const handle = bot.client.workflow.getHandle(workflowId);
    await waitFor(
      'the third attempt of the workflow task',
      async () => ((await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0) >= 3,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const lines = logged
      .join('')
      .split('\n')
      .filter((l) => l.includes(message));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Workflow task failed: ${message}`);
    expect(lines[0]).toContain(`workflowId=${workflowId}`);

    const shown = await showConversation(bot.client, workflowId, { queryTimeoutMs: 5_000 });
    expect(shown).toMatchObject({
      workflowId,
      agentKey: bot.agentKey,
      status: 'RUNNING',
      taskFailure: { message },
    });
    expect(shown.taskFailure!.attempt).toBeGreaterThanOrEqual(2);

    const listing = await waitFor(
      'the failing handler in the list',
      async () =>
        (await listConversations(bot.client, { agentKey: bot.agentKey, queryTimeoutMs: 5_000 })).find(
          (l) => l.workflowId === workflowId,
        ),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(listing.taskFailure).toMatchObject({ message });
    expect(listing.noState).toMatch(/^workflow task failing \(attempt \d+\): Cannot read properties/);
  });
});
