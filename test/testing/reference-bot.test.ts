/**
 * The reference bot through the bot test harness, with time skipping: signup with a re-ask, the
 * nudge ladder and the polite give-up, cancel, help while a question waits.
 */
import { createBotTestEnv, type BotTestEnv } from '../../testing';

jest.setTimeout(120_000);

describe('reference bot (bot test harness, time skipping)', () => {
  let bot: BotTestEnv;
  beforeEach(async () => {
    bot = await createBotTestEnv({ workflows: require.resolve('../../workflows/reference-bot') });
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
    await bot.expectBot(/I know these commands/);
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
