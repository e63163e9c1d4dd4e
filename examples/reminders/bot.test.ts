// The standup reminder example, tested as its author would: a scripted human, with time skipping.
import { createBotTestEnv, type BotTestEnv } from 'amsflow/testing';

jest.setTimeout(120_000);

let bot: BotTestEnv;
beforeEach(async () => {
  // The human's zone, as AMSFLOW_TIMEZONE sets it on a worker.
  bot = await createBotTestEnv({ workflows: require.resolve('./bot'), timeZone: 'Europe/Berlin' });
});
afterEach(() => bot.teardown());

test('reminds on each weekday at 09:30 Berlin time until cancelled', async () => {
  await bot.say('standup at 09:30');
  await bot.expectBot(
    /^Standup reminder set: every Monday, Tuesday, Wednesday, Thursday and Friday at 09:30 \(Europe\/Berlin\), next on (Mon|Tue|Wed|Thu|Fri) /,
  );
  await bot.skip('7 days');
  for (let day = 0; day < 5; day++) await bot.expectBot('⏰ Standup in 5 minutes');
  await bot.say('stop standup');
  await bot.expectBot('Standup reminder cancelled.');
  await bot.skip('7 days');
  await bot.say('stop standup');
  await bot.expectBot('There is no standup reminder.');
});
