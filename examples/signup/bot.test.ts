// The signup example, tested as its author would: a scripted human, with time skipping.
import { createBotTestEnv, type BotTestEnv } from 'amsflow/testing';

jest.setTimeout(120_000);

let bot: BotTestEnv;
beforeEach(async () => {
  bot = await createBotTestEnv({ workflows: require.resolve('./bot') });
});
afterEach(() => bot.teardown());

test('signs up, re-asking a malformed email', async () => {
  await bot.say('signup');
  await bot.expectBot('What is your name?');
  await bot.say('Ada');
  await bot.expectBot('What is your email?');
  await bot.say('ada at example');
  await bot.expectBot('That is not an email address. What is your email?');
  await bot.say('ada@example.com');
  await bot.expectBot('Thanks Ada, registered ada@example.com.');
});

test('nudges twice over three days of silence, then stops', async () => {
  await bot.say('signup');
  await bot.expectBot('What is your name?');
  await bot.skip('1 day');
  await bot.expectBot('Still there? What is your name?');
  await bot.skip('1 day');
  await bot.expectBot('Still there? What is your name?');
  await bot.skip('1 day');
  await bot.expectBot('Signup stopped: no answer.');
});

test('help keeps the question; cancel ends it and says so', async () => {
  await bot.say('signup');
  await bot.expectBot('What is your name?');
  await bot.say('help');
  await bot.expectBot(/^Write signup/);
  await bot.say('cancel');
  await bot.expectBot('Cancelled signup.');
});
