// The approval example with the harness: approved by a quoted yes; reminded, then expired.
import { createBotTestEnv, type BotTestEnv } from 'amsflow/testing';
import { approvedToDeploy } from './deploy';

jest.setTimeout(120_000);

let bot: BotTestEnv;
beforeEach(async () => {
  bot = await createBotTestEnv({ workflows: require.resolve('./bot') });
});
afterEach(() => bot.teardown());

const agent = () => ({ agentKey: bot.agentKey, taskQueue: bot.taskQueue });

test('a quoted yes approves the deploy', async () => {
  const approved = approvedToDeploy(bot.client, 'v2', agent());
  const question = await bot.expectBot(/Deploy v2 to production\?/);
  await bot.say('yes', { replyTo: question });
  await bot.expectBot('Approved: Deploy v2 to production?');
  expect(await approved).toBe(true);
});

test('a silent human is reminded every 15 minutes, then the request expires', async () => {
  const approved = approvedToDeploy(bot.client, 'v3', agent());
  await bot.expectBot(/Deploy v3 to production\?/);
  for (let i = 0; i < 3; i++) {
    await bot.skip('15m');
    await bot.expectBot('Reminder: Deploy v3 to production? (yes or no?)');
  }
  await bot.skip('15m');
  await bot.expectBot('Expired without an answer: Deploy v3 to production?');
  expect(await approved).toBe(false);
});
