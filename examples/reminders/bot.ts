// A weekday standup reminder: "standup at 09:30" sets it, "stop standup" cancels it.
import { cancelSchedule, describeReminder, handleMessages, listSchedules, reply } from 'amsflow/workflows';
import { scheduleRecurring, textOf } from 'amsflow/workflows';

const TEXT = 'Standup in 5 minutes';
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'] as const;

export const onMessage = handleMessages(async (msg) => {
  const text = textOf(msg)?.trim().toLowerCase() ?? '';
  const at = /^standup at (\d{1,2}:\d{2})$/.exec(text)?.[1];
  if (at) {
    const reminder = await scheduleRecurring({ at, days: [...WEEKDAYS] }, TEXT);
    return void (await reply(msg, `Standup reminder set: ${describeReminder(reminder)}.`));
  }
  if (text !== 'stop standup') return void (await reply(msg, 'Write "standup at 09:30" or "stop standup".'));
  const standups = (await listSchedules()).filter((r) => r.text === TEXT);
  for (const reminder of standups) await cancelSchedule(reminder.id);
  await reply(msg, standups.length > 0 ? 'Standup reminder cancelled.' : 'There is no standup reminder.');
});
