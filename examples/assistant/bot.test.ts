// The assistant with a scripted model (the AI SDK's mock): what the human sees, with time skipping.
import {
  createBotTestEnv,
  scriptedModel,
  type BotTestEnv,
  type Script,
  type ScriptedCall,
} from 'amsflow/testing';
import * as activities from './activities';

jest.setTimeout(120_000);

let bot: BotTestEnv;
async function start(script: Script, options: { config?: unknown; timeZone?: string } = {}) {
  const model = scriptedModel(script);
  const { weather, bookTable } = activities;
  bot = await createBotTestEnv({
    workflows: require.resolve('./bot'),
    model,
    activities: { weather, bookTable },
    ...options,
  });
  return model;
}
beforeEach(() => void activities.bookings.splice(0));
afterEach(() => bot.teardown());

const booking = { tool: 'bookTable', input: { restaurant: 'Luigi', day: 'Friday', people: 2 } };
const slow = (text: string) => ({ text, delayMs: 3000 }); // the model thinks for 3 s
const policy = (doubleTexting: string) => ({ config: { doubleTexting } });
const aboutLast = (call: ScriptedCall) => ({
  ...slow(`About ${call.userTexts.at(-1)}`),
  delayMs: call.userTexts[0] === 'first' ? 3000 : 0,
});
const question =
  /^Approval needed: Book Luigi for 2 on Friday\?\nRun bookTable with restaurant: "Luigi", day: "Friday", people: 2\?/;

test('a plain answer', async () => {
  await start([{ text: 'Hello! How can I help?' }]);
  await bot.say('hi');
  await bot.expectBot('Hello! How can I help?');
});

test('a tool call that runs', async () => {
  const model = await start([{ tool: 'weather', input: { city: 'Paris' } }, { text: 'Sunny, 21 °C.' }]);
  await bot.say('Weather in Paris?');
  await bot.expectBot('Sunny, 21 °C.');
  expect(model.calls[1].toolResults).toEqual([
    { name: 'weather', output: { city: 'Paris', sky: 'sunny', celsius: 21 }, isError: false },
  ]);
});

test('a booking approved in the chat runs once', async () => {
  await start([booking, { text: 'Booked: T-1.' }]); // the model asks for bookTable, then answers
  await bot.say('Book Luigi for two on Friday');
  await bot.say('yes', { replyTo: await bot.expectBot(question) });
  await bot.expectBot(/^Approved: Book Luigi for 2 on Friday\?/);
  await bot.expectBot('Booked: T-1.');
  expect(activities.bookings).toEqual([{ restaurant: 'Luigi', day: 'Friday', people: 2 }]);
});

test('a booking rejected in the chat never runs', async () => {
  const model = await start([booking, { text: 'OK, no booking.' }]);
  await bot.say('Book Luigi for two on Friday');
  await bot.react(await bot.expectBot(question), '👎');
  await bot.expectBot(/^Rejected: Book Luigi/);
  await bot.expectBot('OK, no booking.');
  expect(model.calls[1].toolResults[0]).toMatchObject({ isError: true, output: /said no/ });
  expect(activities.bookings).toEqual([]);
});

test('an approval that times out: nothing runs', async () => {
  const model = await start([booking, { text: 'No answer, so no booking.' }]);
  await bot.say('Book Luigi for two on Friday');
  await bot.expectBot(question);
  await bot.skip('10 minutes');
  await bot.expectBot(/^Expired without an answer: Book Luigi/);
  await bot.expectBot('No answer, so no booking.');
  expect(model.calls[1].toolResults[0].output).toMatch(/did not answer within 10m/);
  expect(activities.bookings).toEqual([]);
});

test('a reminder the model sets for tomorrow at 9 fires then, in the human’s zone', async () => {
  const set = { tool: 'setReminder', input: { text: 'call mum', day: 'tomorrow', time: '09:00' } };
  const model = await start([set, { text: 'I will remind you.' }], { timeZone: 'Europe/Berlin' });
  await bot.say('Remind me tomorrow at 9 to call mum');
  await bot.expectBot('I will remind you.');
  const { output } = model.calls[1].toolResults[0];
  expect(JSON.stringify(output)).toMatch(/"when":"09:00 \(Europe\/Berlin\)/);
  await bot.skip('34 hours');
  await bot.expectBot('⏰ call mum');
});

describe('a second message while the model thinks', () => {
  test('interrupt (the default): it starts again with both messages', async () => {
    const model = await start([slow('Friday it is.'), { text: 'Tuesday, then.' }]);
    await bot.say('Book Friday');
    await model.called(1);
    await bot.say('no, Tuesday');
    await bot.expectBot('Tuesday, then.');
    expect(model.calls[1].userTexts).toEqual(['Book Friday', 'no, Tuesday']);
    expect((await bot.transcript()).map((m) => m.text)).not.toContain('Friday it is.');
  });

  test('queue: it answers the first, then the second in a turn of its own', async () => {
    const model = await start([slow('Friday booked.'), { text: 'Tuesday too.' }], policy('queue'));
    await bot.say('Book Friday');
    await model.called(1);
    await bot.say('and Tuesday');
    await bot.expectBot('Friday booked.');
    await bot.expectBot('Tuesday too.');
    const shown = model.calls[1].messages.map((m) => m.text); // the memory, then the new message
    expect(shown).toEqual(['Book Friday', 'Friday booked.', 'and Tuesday']);
  });

  test('apart: each message gets its own turn, answered in order', async () => {
    const model = await start(aboutLast, policy('apart'));
    await bot.say('first');
    await model.called(1);
    await bot.say('second');
    await bot.expectBot('About first');
    await bot.expectBot('About second');
    expect(model.calls[1].userTexts).toEqual(['second']); // the first turn was not in memory yet
  });
});
