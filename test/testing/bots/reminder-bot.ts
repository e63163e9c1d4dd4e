/**
 * A bot for the reminder tests: the reminder commands (workflows/reminders/reminder-commands.ts), and for
 * the downtime test two more: "quick <s> <text>" (due in <s> seconds, marked late from 2 s) and
 * "quick-expiring <s> <text>" (skipped when more than 5 s late). Anything else gets
 * "Not a reminder command.".
 */
import { handleMessages, reply, textOf } from '../../../workflows/index';
import { handleReminderCommand } from '../../../workflows/reminders/reminder-commands';
import { describeReminder, remindIn } from '../../../workflows/reminders/reminders';

export { agentWorkflow, remindersWorkflow } from '../../../workflows/engine-workflows';

const QUICK = /^quick(-expiring)? (\d+) (.+)$/;

export const onMessage = handleMessages(async (message, ctx) => {
  const quick = QUICK.exec(textOf(message) ?? '');
  if (quick) {
    const reminder = await remindIn(
      Number(quick[2]) * 1000,
      quick[3],
      quick[1] ? { maxLateness: '5 seconds' } : { lateAfter: '2 seconds' },
    );
    await reply(message, `Quick reminder at ${describeReminder(reminder)}: ${reminder.text}`);
  } else if (!(await handleReminderCommand(message, ctx))) {
    await reply(message, 'Not a reminder command.');
  }
});
