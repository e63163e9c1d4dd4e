/**
 * The reference bot through the bot test harness, with time skipping: signup with a re-ask, the
 * nudge ladder and the polite give-up, cancel, help while a question waits (it ends with the
 * question), and two quick cancels answered in the order they were written.
 */
import { agentWorkflowId, approvalWorkflowId } from '../../protocol/agent';
import { stateQuery, wakeSignal } from '../../protocol/messages';
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import { waitFor } from '../support/temporal';

jest.setTimeout(120_000);

describe('reference bot (bot test harness, time skipping)', () => {
  let bot: BotTestEnv;
  beforeEach(async () => {
    bot = await createBotTestEnv({ workflows: require.resolve('../../examples/reference/bot') });
  });
  afterEach(async () => {
    await bot?.teardown();
  });

  it('signs up: name, a malformed email re-asked, then the confirmation', async () => {
    await bot.say('signup');
    await bot.expectBot('What is your name?');
    await bot.say('Ada');
    await bot.expectBot(/email/);
    await bot.say('ada-at-example.com');
    await bot.expectBot(/no @.*What is your email\?/);
    await bot.say('ada@example.com');
    await bot.expectBot('Thanks Ada, registered ada@example.com.');
  });

  it('nudges a silent human once a day, then gives up politely after three days', async () => {
    await bot.say('signup');
    await bot.expectBot('What is your name?');
    await bot.skip('1 day');
    await bot.expectBot('Still there? What is your name?');
    await bot.skip('1 day');
    await bot.expectBot('Still there? What is your name?');
    await bot.skip('1 day');
    await bot.expectBot('I have not heard back, so I stopped the signup. Write signup to start again.');
    // Over: a later message is a new conversation.
    await bot.say('cancel');
    await bot.expectBot('There is nothing to cancel.');
  });

  it('cancel ends the waiting signup and says so; help while it waits keeps the question', async () => {
    await bot.say('signup');
    await bot.expectBot('What is your name?');
    await bot.say('Grace');
    await bot.expectBot(/email/);
    await bot.say('/help');
    // The help ends with the question that still waits.
    await bot.expectBot(
      /^I know these commands.*\n\nStill waiting for your answer: Thanks, Grace\. What is your email\?$/s,
    );
    await bot.say('grace@example.com');
    await bot.expectBot('Thanks Grace, registered grace@example.com.');
    await bot.say('signup');
    await bot.expectBot('What is your name?');
    await bot.say('cancel');
    await bot.expectBot('Cancelled signup.');
    await bot.say('cancel');
    await bot.expectBot('There is nothing to cancel.');
  });
});

describe('reference bot: replies leave in the order their messages arrived', () => {
  let bot: BotTestEnv;
  afterEach(async () => {
    await bot?.teardown();
  });

  it('two quick cancels: "Cancelled signup." first, then "There is nothing to cancel."', async () => {
    // One send per window, and an approval's question waiting for it in the outbox: the answers
    // to both cancels then wait in the queue together, and the outbox's order decides.
    bot = await createBotTestEnv({
      workflows: require.resolve('../../examples/reference/bot'),
      limits: { messages: 1 },
    });
    await bot.say('signup');
    await bot.expectBot('What is your name?');
    await bot.client.workflow.start('approvalWorkflow', {
      taskQueue: bot.taskQueue,
      workflowId: approvalWorkflowId(bot.agentKey, 'hold'),
      args: [
        {
          agentKey: bot.agentKey,
          id: 'hold',
          question: 'Hold?',
          timeoutMs: 3_600_000,
          requestedAt: Date.now(),
        },
      ],
    });
    const agent = bot.client.workflow.getHandle(agentWorkflowId(bot.agentKey));
    await waitFor('the approval sending', async () =>
      (await agent.query(stateQuery)).sending?.startsWith('approval:'),
    );
    // Both in one page: written before the agent (idle until woken) polls again.
    await bot.simulator.control.humanText('cancel', { agent: bot.agentKey });
    await bot.simulator.control.humanText('cancel', { agent: bot.agentKey });
    await agent.signal(wakeSignal);
    await waitFor('both answers queued', async () => (await agent.query(stateQuery)).queueLength === 2);
    await bot.expectBot(/Approval needed: Hold\?/);
    await bot.expectBot('Cancelled signup.');
    await bot.expectBot('There is nothing to cancel.');
  });
});
