/**
 * The human's own time zone through the reference bot (bot test harness, time skipping): "what
 * time is it" on the worker's zone, then "my time zone is Europe/Berlin" moves the pending
 * reminders: a daily 09:00 to 09:00 in Berlin (and it fires there), a one-shot "at 09:00" too,
 * and "in 2 hours" keeps its instant. The zone is kept by the agent's reminders workflow.
 */
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import { zonedDateTime } from '../../core/zoned-time';
import { remindersQuery, remindersWorkflowId, type RemindersView } from '../../protocol/reminders';
import { waitFor } from '../support/temporal';

jest.setTimeout(180_000);

const MINUTE = 60_000;
const DAY = 86_400_000;
const BERLIN = 'Europe/Berlin';

let bot: BotTestEnv;
afterEach(async () => {
  await bot?.teardown();
});

/** Server time as of the chat's last message (the simulator's clock is the test server's). */
async function lastMessageAt(): Promise<number> {
  const { entries } = await bot.simulator.control.conversation(bot.agentKey);
  return Number(entries[entries.length - 1].timestamp) * 1000;
}

async function registry(): Promise<RemindersView> {
  return bot.client.workflow.getHandle(remindersWorkflowId(bot.agentKey)).query(remindersQuery);
}

const byText = (view: RemindersView, text: string) => view.reminders.find((r) => r.text === text)!;

describe('time zone (reference bot, bot test harness, time skipping)', () => {
  it('"my time zone is Europe/Berlin" moves a pending daily 09:00 reminder to 09:00 in Berlin', async () => {
    bot = await createBotTestEnv({
      workflows: require.resolve('../../examples/reference/bot'),
      tuning: { idlePollMs: 30 * DAY },
    });
    await bot.say('what time is it?');
    await bot.expectBot(/^It is \d\d:\d\d on \w+day \d+ \w+ \d{4} \(UTC\)\.$/);
    // From noon UTC, the next 09:00 is tomorrow's in UTC and in Berlin alike.
    const now = await lastMessageAt();
    let noon = Math.floor(now / DAY) * DAY + 12 * 3_600_000;
    if (noon <= now) noon += DAY;
    await bot.skip(noon - now);

    await bot.say('remind me every day at 09:00 to stand up');
    await bot.expectBot(/^OK, I will remind you every day at 09:00 \(UTC\), next .*: stand up$/);
    await bot.say('remind me at 09:00 to water the plants');
    await bot.expectBot(/^OK, I will remind you at 09:00 \(UTC\) .*: water the plants$/);
    await bot.say('remind me in 2 hours to stretch');
    await bot.expectBot(/: stretch$/);
    const before = await registry();
    expect(before.timeZone).toBeUndefined();

    await bot.say('my time zone is europe/berlin');
    const changed = await bot.expectBot(
      /^OK, your time zone is Europe\/Berlin: it is .*\(Europe\/Berlin\)\./,
    );
    expect(changed.text).toMatch(/Your reminders keep their clock times:\n1\. .*: stretch\n/);
    expect(changed.text).toMatch(/every day at 09:00 \(Europe\/Berlin\).*: stand up/);

    const after = await waitFor('the zone kept', async () => {
      const view = await registry();
      return view.timeZone === BERLIN ? view : undefined;
    });
    const daily = byText(after, 'stand up');
    const plants = byText(after, 'water the plants');
    expect(daily.timeZone).toBe(BERLIN);
    expect(zonedDateTime(daily.dueAt, BERLIN)).toMatchObject({ hour: 9, minute: 0, second: 0 });
    // Berlin is ahead of UTC: 09:00 there comes before 09:00 UTC.
    expect(daily.dueAt).toBeLessThan(byText(before, 'stand up').dueAt);
    expect(plants.dueAt).toBe(daily.dueAt);
    expect(byText(after, 'stretch').dueAt).toBe(byText(before, 'stretch').dueAt);

    await bot.say('what time is it');
    await bot.expectBot(/^It is \d\d:\d\d on .*\(Europe\/Berlin\)\.$/);

    // "In 2 hours" fires at its instant, the daily one at 09:00 Berlin time.
    const asked = await lastMessageAt();
    await bot.skip(daily.dueAt - asked - MINUTE);
    await bot.expectBot('⏰ stretch');
    await bot.skip('2 minutes');
    await bot.expectBot('⏰ stand up');
    const sent = await lastMessageAt();
    expect(sent).toBeGreaterThanOrEqual(daily.dueAt);
    expect(sent).toBeLessThan(daily.dueAt + MINUTE);
    await bot.expectBot('⏰ water the plants');
  });

  it('an unknown zone is refused and changes nothing', async () => {
    bot = await createBotTestEnv({ workflows: require.resolve('../../examples/reference/bot') });
    await bot.say('my time zone is Mars/Olympus_Mons');
    await bot.expectBot(
      '"Mars/Olympus_Mons" is not a time zone I know. Write it like Europe/Berlin or America/New_York.',
    );
    await bot.say('what time is it');
    await bot.expectBot(/\(UTC\)\.$/);
  });
});
