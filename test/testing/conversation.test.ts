/**
 * The conversation API through the bot test harness with time skipping: late answers, re-asks
 * of invalid input, whichever-comes-first with each outcome, and the nudge that must never
 * follow a received answer.
 */
import { cancelSignal } from '../../protocol/messages';
import { handlerWorkflowId } from '../../protocol/agent';
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import { approveSignal, flagUpdate } from './bots/conversation-bot';

jest.setTimeout(180_000);

describe('conversation API (bot test harness, time skipping)', () => {
  let bot: BotTestEnv;
  beforeAll(async () => {
    bot = await createBotTestEnv({ workflows: require.resolve('./bots/conversation-bot') });
  });
  afterAll(async () => {
    await bot?.teardown();
  });

  it('routes a late answer to the conversation’s onLate, not to a new handler', async () => {
    await bot.say('late');
    const question = await bot.expectBot('Pick a color?');
    await bot.skip('1 hour');
    await bot.expectBot('too late');
    await bot.say('blue', { replyTo: question });
    const answer = await bot.expectBot('late: blue');
    expect(answer.replyTo).toBeDefined();
  });

  it('re-asks an answer the schema refuses, saying what is wrong; gives up after maxTries', async () => {
    await bot.say('age');
    await bot.expectBot('How old are you?');
    await bot.say('abc');
    await bot.expectBot(/^Expected number, received nan\. How old are you\?$/);
    await bot.say('42');
    await bot.expectBot('age 42');
    await bot.say('age');
    await bot.expectBot('How old are you?');
    await bot.say('-1');
    await bot.expectBot(/greater than or equal to 0\. How old are you\?/);
    await bot.say('200');
    await bot.expectBot('gave up: tooManyTries');
  });

  describe('firstOf: whichever comes first', () => {
    const race = async () => {
      const started = await bot.say('race');
      const question = await bot.expectBot('Approve?');
      return { question, handle: bot.client.workflow.getHandle(handlerWorkflowId(bot.agentKey, started)) };
    };

    it('a message', async () => {
      await race();
      await bot.say('hello');
      await bot.expectBot('race: message hello');
    });

    it('a quoting reply', async () => {
      const { question } = await race();
      await bot.say('yes', { replyTo: question });
      await bot.expectBot('race: reply yes');
    });

    it('a reaction', async () => {
      const { question } = await race();
      await bot.react(question, '👍');
      await bot.expectBot('race: reaction 👍');
    });

    it('a cancel word (the human is told)', async () => {
      await race();
      await bot.say('cancel');
      await bot.expectBot('Cancelled.');
      await bot.expectBot('race: cancel human');
    });

    it('a cancel from outside (the human is told)', async () => {
      const { handle } = await race();
      await handle.signal(cancelSignal, { reason: 'test' });
      await bot.expectBot('Cancelled.');
      await bot.expectBot('race: cancel operator');
    });

    it('the timeout', async () => {
      await race();
      await bot.skip('1 hour');
      await bot.expectBot('race: timeout');
    });

    it('an external signal', async () => {
      const { handle } = await race();
      await handle.signal(approveSignal, 'by-ops');
      await bot.expectBot('race: signal approve by-ops');
    });

    it('an external update (through until)', async () => {
      const { handle } = await race();
      await handle.executeUpdate(flagUpdate);
      await bot.expectBot('race: until');
    });

    it('a message that crosses the end of the wait goes to a new handler, once', async () => {
      await race();
      await bot.skip('1 hour');
      await bot.expectBot('race: timeout');
      await bot.say('hello again');
      await bot.expectBot('unknown');
    });
  });

  it('nudges on the ladder while silent; none after the answer, even one already due and queued', async () => {
    await bot.say('city');
    await bot.expectBot('Your city?');
    await bot.skip('10 minutes');
    await bot.expectBot('Still there? Your city?');
    // The next nudge falls due while the outbox is held back by a 429 (Retry-After 120 s); the
    // answer arrives in that time. The agent drops the due nudge: the answer was received first.
    await bot.simulator.control.fault({
      agent: bot.agentKey,
      endpoint: 'messages',
      fault: { kind: 'rate_limit', retryAfter: 120 },
    });
    await bot.skip('10 minutes');
    await waitForFaultUsed(bot);
    await bot.say('Paris');
    await bot.expectBot('city Paris');
    await bot.skip('1 hour');
    const nudges = (await bot.transcript()).filter((m) => m.text === 'Still there? Your city?');
    expect(nudges).toHaveLength(1);
  });
});

async function waitForFaultUsed(bot: BotTestEnv): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await bot.simulator.control.faults(bot.agentKey)).length > 0) {
    if (Date.now() > deadline) throw new Error('the nudge never reached the service');
    await new Promise((r) => setTimeout(r, 50));
  }
}
