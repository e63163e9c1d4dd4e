/**
 * Reminders through the bot test harness, with time skipping: a one-shot reminder days ahead
 * (listed, another cancelled by number from a fresh handler), a weekly reminder across the next
 * DST change of Europe/Berlin (it keeps 09:00 local time), and the catch-up policy of the
 * reminders workflow: a reminder found overdue is delivered once marked late, or skipped past
 * its limit, and a recurring one gives one late delivery, not a burst.
 */
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import { offsetMinutes, zonedDateTime } from '../../core/zoned-time';
import {
  remindersCommandSignal,
  remindersQuery,
  remindersWorkflowId,
  type Reminder,
  type RemindersView,
} from '../../protocol/reminders';

jest.setTimeout(180_000);

const BOT = require.resolve('./bots/reminder-bot');
const MINUTE = 60_000;
const DAY = 86_400_000;

/** The harness's agent polls after an idle month at most: long skips stay cheap. */
const tuning = { idlePollMs: 30 * DAY };

let bot: BotTestEnv;
afterEach(async () => {
  await bot?.teardown();
});

async function entries() {
  return (await bot.simulator.control.conversation(bot.agentKey)).entries;
}

/** Server time as of the chat's last message (the simulator's clock is the test server's). */
async function lastMessageAt(): Promise<number> {
  const all = await entries();
  return Number(all[all.length - 1].timestamp) * 1000;
}

async function botTexts(): Promise<string[]> {
  return (await bot.transcript()).filter((m) => m.from === 'bot').map((m) => m.text ?? '');
}

async function registry(): Promise<RemindersView> {
  return bot.client.workflow.getHandle(remindersWorkflowId(bot.agentKey)).query(remindersQuery);
}

/**
 * The registry once `done` holds, polled with a deadline: its counts follow the send's result,
 * which comes back to the workflow after the simulator already shows the message.
 */
async function registryWhen(done: (view: RemindersView) => boolean): Promise<RemindersView> {
  const deadline = Date.now() + 10_000;
  let view = await registry();
  while (!done(view) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    view = await registry();
  }
  return view;
}

/** Skips to `at` (server time), given the server time `now`. */
async function skipTo(at: number, now: number): Promise<void> {
  expect(at).toBeGreaterThan(now);
  await bot.skip(at - now);
}

/** The bot's last message was sent within a minute after `due`. */
async function lastSentNear(due: number): Promise<void> {
  const sent = await lastMessageAt();
  expect(sent).toBeGreaterThanOrEqual(Math.floor(due / 1000) * 1000);
  expect(sent).toBeLessThan(due + MINUTE);
}

describe('reminders (bot test harness, time skipping)', () => {
  it('a one-shot reminder three days ahead arrives once, on time; another is cancelled by number', async () => {
    bot = await createBotTestEnv({ workflows: BOT, timeZone: 'Europe/Berlin', tuning });
    await bot.say('remind me in 3 days to call mom');
    await bot.expectBot(
      /^OK, I will remind you at \d\d:\d\d(:\d\d)? \(Europe\/Berlin\) on \w{3} \d+ \w{3}: call mom$/,
    );
    await bot.say('remind me in 2 days to buy milk');
    await bot.expectBot(/^OK, I will remind you at .*: buy milk$/);
    await bot.say('reminders');
    const list = await bot.expectBot(/^Your reminders:/);
    expect(list.text).toMatch(/\n1\. .*\(Europe\/Berlin\).*: buy milk\n2\. .*: call mom\n/);
    await bot.say('cancel reminder 1');
    await bot.expectBot('Cancelled reminder 1: buy milk');
    // Numbers refer to the list shown: 2 is still "call mom" there, and it is not cancelled here.
    await bot.say('cancel reminder 3');
    await bot.expectBot('There is no reminder 3. Write reminders to see the list.');

    const [pending] = (await registry()).reminders;
    expect(pending).toMatchObject({ text: 'call mom', timeZone: 'Europe/Berlin' });
    const now = await lastMessageAt();
    expect(pending.dueAt - now).toBeGreaterThan(3 * DAY - 2 * MINUTE);
    await skipTo(pending.dueAt - 2 * MINUTE, now);
    expect((await botTexts()).some((t) => t.startsWith('⏰'))).toBe(false);
    await bot.skip('3 minutes');
    const reminder = await bot.expectBot('⏰ call mom');
    expect(reminder.text).toBe('⏰ call mom');
    await lastSentNear(pending.dueAt);

    // Once: a day later there is nothing more, and the list is empty.
    await bot.skip('1 day');
    await bot.say('reminders');
    await bot.expectBot('No reminders.');
    expect((await botTexts()).filter((t) => t.startsWith('⏰'))).toEqual(['⏰ call mom']);
    expect(await registry()).toMatchObject({ reminders: [], delivered: 1, skipped: 0, failed: 0 });
  });

  it('a weekly reminder keeps 09:00 Europe/Berlin across the next DST change', async () => {
    bot = await createBotTestEnv({ workflows: BOT, timeZone: 'Europe/Berlin', tuning });
    await bot.say('reminders');
    await bot.expectBot('No reminders.');
    let now = await lastMessageAt();

    // The next change of Berlin's offset at least ten days ahead, to the second, and its local date.
    let change = nextOffsetChange('Europe/Berlin', now);
    if (change - 10 * DAY <= now + MINUTE) change = nextOffsetChange('Europe/Berlin', change + DAY);
    const before = offsetMinutes(change - 1000, 'Europe/Berlin');
    const after = offsetMinutes(change, 'Europe/Berlin');
    expect(Math.abs(after - before)).toBe(60);
    const day = zonedDateTime(change, 'Europe/Berlin');
    expect(day.weekday).toBe('sun');
    // 09:00 local on the Sunday before the change and on the day of the change, in UTC.
    const nine = (offset: number, daysBack: number) =>
      Date.UTC(day.year, day.month - 1, day.day - daysBack, 9, 0) - offset * MINUTE;
    const firstDue = nine(before, 7);
    const secondDue = nine(after, 0);
    // Seven days apart on the wall clock, not in elapsed time.
    expect(secondDue - firstDue).toBe(7 * DAY - (after - before) * MINUTE);

    // Ten days before the change, the human asks for a weekly reminder.
    await skipTo(change - 10 * DAY, now);
    await bot.say('remind me every sunday at 09:00 to water the plants');
    await bot.expectBot(
      /^OK, I will remind you every Sunday at 09:00 \(Europe\/Berlin\), next on Sun \d+ \w{3}( \d{4})?: water the plants$/,
    );
    expect((await registry()).reminders[0]).toMatchObject({
      dueAt: firstDue,
      recurring: { at: '09:00', days: ['sun'] },
    });

    now = await lastMessageAt();
    await skipTo(firstDue - 2 * MINUTE, now);
    expect((await botTexts()).some((t) => t.startsWith('⏰'))).toBe(false);
    await bot.skip('3 minutes');
    await bot.expectBot((m) => m.text === '⏰ water the plants');
    await lastSentNear(firstDue);
    // The next one is 09:00 local again, on the day of the change.
    expect((await registryWhen((v) => v.reminders[0]?.dueAt === secondDue)).reminders[0].dueAt).toBe(
      secondDue,
    );

    now = await lastMessageAt();
    await skipTo(secondDue - 2 * MINUTE, now);
    expect((await botTexts()).filter((t) => t.startsWith('⏰'))).toHaveLength(1);
    await bot.skip('3 minutes');
    await bot.expectBot((m) => m.text === '⏰ water the plants');
    await lastSentNear(secondDue);
    const third = nine(after, -7);
    expect((await registryWhen((v) => v.reminders[0]?.dueAt === third)).reminders[0].dueAt).toBe(third);
  });

  it('catch-up: overdue reminders are delivered once marked late, skipped past the limit, no burst', async () => {
    bot = await createBotTestEnv({ workflows: BOT, tuning });
    await bot.say('reminders');
    await bot.expectBot('No reminders.');
    const now = await lastMessageAt();
    const lastMissed = Math.floor((now - 2 * 60 * MINUTE) / MINUTE) * MINUTE;
    const base = { timeZone: 'UTC', createdAt: now - 5 * DAY, maxLatenessMs: DAY, lateAfterMs: MINUTE };
    // What the reminders workflow finds when it wakes after downtime: reminders whose time passed.
    const overdue: Reminder[] = [
      { ...base, id: 'two-hours', text: 'stand up', dueAt: now - 2 * 60 * MINUTE },
      { ...base, id: 'two-days', text: 'too old', dueAt: now - 2 * DAY },
      // Daily, last due two hours ago and unseen for three days before that: four occurrences missed.
      {
        ...base,
        id: 'daily',
        text: 'daily check',
        dueAt: lastMissed - 3 * DAY,
        recurring: { at: new Date(lastMissed).toISOString().slice(11, 16) },
      },
    ];
    const handle = bot.client.workflow;
    for (const reminder of overdue) {
      await handle.signalWithStart('remindersWorkflow', {
        workflowId: remindersWorkflowId(bot.agentKey),
        taskQueue: bot.taskQueue,
        args: [{ agentKey: bot.agentKey }],
        signal: remindersCommandSignal,
        signalArgs: [{ op: 'add', reminder }],
      });
    }
    const first = await bot.expectBot(/^⏰ /);
    const second = await bot.expectBot(/^⏰ /);
    // The daily one is late by the time since its last occurrence, not since three days ago.
    expect([first.text, second.text].sort()).toEqual([
      '⏰ daily check (late by 2 h)',
      '⏰ stand up (late by 2 h)',
    ]);

    const state = await registryWhen((v) => v.delivered + v.skipped + v.failed >= 3);
    expect(state).toMatchObject({ delivered: 2, skipped: 1, failed: 0 });
    expect(state.reminders.map((r) => r.id)).toEqual(['daily']);
    expect(state.reminders[0].dueAt).toBe(lastMissed + DAY);
    // And nothing else came: no burst of the missed occurrences, nothing for the one too old.
    await bot.skip('1 minute');
    expect((await botTexts()).filter((t) => t.startsWith('⏰'))).toHaveLength(2);
    // Adding a reminder that ended again (a retried write) does not bring it back.
    const registryHandle = handle.getHandle(remindersWorkflowId(bot.agentKey));
    await registryHandle.signal(remindersCommandSignal, { op: 'add', reminder: overdue[0] });
    await registryHandle.signal(remindersCommandSignal, { op: 'shown', list: [{ id: 'marker', text: '' }] });
    await registryWhen((v) => v.shown[0]?.id === 'marker');
    expect(await registry()).toMatchObject({ shown: [{ id: 'marker' }], delivered: 2 });
    expect((await registry()).reminders.map((r) => r.id)).toEqual(['daily']);
  });

  it('continues as new with its reminders, ended ids and counts: a daily reminder fires on, once a day', async () => {
    bot = await createBotTestEnv({ workflows: BOT, tuning });
    await bot.say('reminders');
    await bot.expectBot('No reminders.');
    const now = await lastMessageAt();
    const first = Math.floor(now / MINUTE) * MINUTE + 10 * MINUTE;
    const reminder: Reminder = {
      id: 'daily',
      text: 'daily',
      timeZone: 'UTC',
      dueAt: first,
      recurring: { at: new Date(first).toISOString().slice(11, 16) },
      createdAt: now,
      maxLatenessMs: DAY,
      lateAfterMs: MINUTE,
    };
    const started = await bot.client.workflow.signalWithStart('remindersWorkflow', {
      workflowId: remindersWorkflowId(bot.agentKey),
      taskQueue: bot.taskQueue,
      args: [{ agentKey: bot.agentKey, continueAfterEvents: 40 }],
      signal: remindersCommandSignal,
      signalArgs: [{ op: 'add', reminder }],
    });
    const once: Reminder = {
      ...reminder,
      id: 'once',
      text: 'once',
      dueAt: first + MINUTE,
      recurring: undefined,
    };
    delete once.recurring;
    const registryHandle = bot.client.workflow.getHandle(remindersWorkflowId(bot.agentKey));
    await registryHandle.signal(remindersCommandSignal, { op: 'add', reminder: once });
    await skipTo(first + 4 * DAY + 2 * MINUTE, now);
    await bot.expectBot((m) => m.text === '⏰ daily');
    await bot.expectBot((m) => m.text === '⏰ once');
    for (let day = 1; day < 5; day++) await bot.expectBot((m) => m.text === '⏰ daily');
    // The ended ids travelled: "once", delivered in the first run, is not taken again.
    await registryHandle.signal(remindersCommandSignal, { op: 'add', reminder: once });
    await registryHandle.signal(remindersCommandSignal, { op: 'shown', list: [{ id: 'marker', text: '' }] });
    const state = await registryWhen((v) => v.shown[0]?.id === 'marker' && v.delivered >= 6);
    expect(state).toMatchObject({ delivered: 6, skipped: 0, failed: 0, shown: [{ id: 'marker' }] });
    expect(state.reminders).toEqual([{ ...reminder, dueAt: first + 5 * DAY }]);
    // It did continue as new (more than once): the run is not the first one.
    const described = await registryHandle.describe();
    expect(described.runId).not.toBe(started.signaledRunId);
    expect(described.status.name).toBe('RUNNING');
  });
});

/** The first instant after `from` at which the zone's offset changes (to the second). */
function nextOffsetChange(zone: string, from: number): number {
  const offset = offsetMinutes(from, zone);
  let lo = from;
  let hi = from;
  while (offsetMinutes(hi, zone) === offset) hi += DAY;
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMinutes(mid, zone) === offset) lo = mid;
    else hi = mid;
  }
  return hi;
}
