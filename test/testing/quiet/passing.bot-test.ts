// A passing bot test, run by quiet-output.test.ts in a jest of its own (as a bot project runs it).
import { createBotTestEnv, type BotTestEnv } from 'amsflow/testing';

jest.setTimeout(120_000);

let bot: BotTestEnv;
beforeAll(async () => {
  bot = await createBotTestEnv({ workflows: require.resolve('../bots/mistakes-bot') });
});
afterAll(async () => {
  await bot?.teardown();
});

it('answers', async () => {
  await bot.say('hello');
  await bot.expectBot('ok hello');
  if (process.env.AMSFLOW_QUIET_TEST_WARN === '1') {
    // A real warning: a handler that fails (not an SDK notice): it must still show.
    await bot.say('boom');
    await bot.say('again');
    await bot.expectBot('ok again');
  }
});
