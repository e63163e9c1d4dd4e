/**
 * The reference bot: an example of user code, using only amsflow's public workflow API.
 *   echo <text>  answers <text>, quoting the message
 *   signup       asks the name, then the email (re-asked until valid), then confirms
 *   cancel       cancels the question waiting (or says there is nothing to cancel)
 *   remind me in <n> <unit> / at <HH:MM> / every day at <HH:MM> to <text>, reminders,
 *   cancel reminder <n>   reminders in the human's time zone
 *   my time zone is <zone>, what time is it   the human's own zone, kept per agent (the
 *                agents file's `timeZone`, else `AMSFLOW_TIMEZONE`, until the human sets one)
 *   help         the commands
 *   anything else   answered by the worker's model (`AMSFLOW_MODEL`), with the reminders as its
 *                tools; without a model, the commands
 * Approvals requested from outside (`amsflow approval request`) are answered in the same chat
 * (the worker and the test harness bundle amsflow's own workflows with any bot module).
 * This module is the default workflow bundle of the worker (`AMSFLOW_WORKFLOWS`). It imports the
 * public workflow API by its file (`workflows/index.ts`, what `amsflow/workflows` names) rather than
 * by the package name: the worker loads it with Node in a clone that has no build, where the
 * package's own name resolves only inside the bundler.
 */
import {
  REMINDER_COMMANDS,
  TIME_ZONE_COMMANDS,
  answerWithModel,
  handleMessages,
  handleReminderCommand,
  handleTimeZoneCommand,
  invalid,
  isText,
  nameConversation,
  prompt,
  reminderTools,
  reply,
  sendText,
  textOf,
  type InboundMessage,
  type MessageHandler,
  type PendingWait,
  type PromptResult,
} from '../../workflows';

// Not needed by the worker or the harness; kept for bundles prebuilt with plain
// `bundleWorkflowCode` (AMSFLOW_WORKFLOW_BUNDLE, as in the cluster's tests and the benchmark).
export {
  agentWorkflow,
  approvalWorkflow,
  modelMemoryWorkflow,
  remindersWorkflow,
} from '../../workflows/engine-workflows';

/** The bot's commands, as the help text and `npm start`'s banner list them. */
export const COMMANDS: readonly { command: string; description: string }[] = [
  { command: 'echo <text>', description: 'I repeat <text>' },
  { command: 'signup', description: 'I ask your name and email, then register you' },
  { command: 'cancel', description: 'I stop the question I am waiting on' },
  ...REMINDER_COMMANDS,
  ...TIME_ZONE_COMMANDS,
  { command: 'help', description: 'this list' },
  { command: 'anything else', description: "the worker's model answers it, when it has one (AMSFLOW_MODEL)" },
];

export const HELP_TEXT = [
  'I know these commands:',
  ...COMMANDS.map((c) => `• ${c.command} — ${c.description}`),
].join('\n');

/** The help while a question waits: the commands, then the question again (it stays pending). */
export function helpWhileWaiting(pending: PendingWait): string {
  return pending.question ? `${HELP_TEXT}\n\nStill waiting for your answer: ${pending.question}` : HELP_TEXT;
}

export const NOTHING_TO_CANCEL_TEXT = 'There is nothing to cancel.';

const ECHO = /^\s*echo\s+([\s\S]+)$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** How long signup waits for each answer, and its nudge ladder: a nudge a day, then it gives up. */
const SIGNUP_WAIT = { timeout: '3 days', nudge: { after: '1 day', max: 2 } } as const;

const parseName = (text: string) => {
  const name = text.trim();
  if (!name) return invalid('Please tell me your name in words. What is your name?');
  if (name.length > 100)
    return invalid('That is longer than a name should be (100 characters at most). What is your name?');
  return name;
};

const parseEmail = (text: string) => {
  const email = text.trim();
  if (!email.includes('@'))
    return invalid(`"${email}" has no @, so it is not an email address. What is your email?`);
  if (!EMAIL.test(email))
    return invalid(`"${email}" is not a valid email address (like ada@example.com). What is your email?`);
  return email;
};

async function giveUp(result: Extract<PromptResult<string>, { ok: false }>): Promise<void> {
  // A cancel was already answered with "Cancelled signup.".
  if (result.reason === 'timeout')
    await sendText('I have not heard back, so I stopped the signup. Write signup to start again.');
  if (result.reason === 'tooManyTries')
    await sendText('That did not work out, so I stopped the signup. Write signup to start again.');
}

async function signup(message: InboundMessage): Promise<void> {
  nameConversation('signup');
  const name = await prompt('What is your name?', {
    ...SIGNUP_WAIT,
    replyTo: message,
    parse: parseName,
    step: 'name',
  });
  if (!name.ok) return giveUp(name);
  const email = await prompt(`Thanks, ${name.value}. What is your email?`, {
    ...SIGNUP_WAIT,
    parse: parseEmail,
    step: 'email',
  });
  if (!email.ok) return giveUp(email);
  await sendText(`Thanks ${name.value}, registered ${email.value}.`, { reconcileAmbiguous: true });
}

/** The bot's behaviour for one message. */
export const referenceBot: MessageHandler = async (message, ctx) => {
  // Reactions and media are not commands; stay quiet rather than answer each with the help.
  if (!isText(message)) return;
  if (await handleReminderCommand(message, ctx)) return;
  if (await handleTimeZoneCommand(message)) return;
  const text = textOf(message)!;
  const echo = ECHO.exec(text);
  const command = text.trim().toLowerCase().replace(/^\//, '');
  // A reply lost to a crash mid-send is worse than the wait: let the agent settle it from receipts.
  if (echo) await reply(message, echo[1], { reconcileAmbiguous: true });
  else if (command === 'signup') await signup(message);
  else if (command === 'cancel') await reply(message, NOTHING_TO_CANCEL_TEXT);
  else if (command === 'help' || !(await answeredByModel(message))) {
    await reply(message, HELP_TEXT, { reconcileAmbiguous: true });
  }
};

/** What the model is told of itself: the bot's commands still work beside it. */
const SYSTEM = `You are the amsflow demo bot, chatting with one human. Be brief. You can set, list and cancel reminders. Besides you, the bot answers these commands:\n${COMMANDS.map((c) => `${c.command}: ${c.description}`).join('\n')}`;

/** Hands `message` to the worker's model; false when the worker has none. */
async function answeredByModel(message: InboundMessage): Promise<boolean> {
  const answer = await answerWithModel(message, { system: SYSTEM, tools: { ...reminderTools } });
  return answer.ok || answer.reason !== 'noModel';
}

/** The handler workflow (type `onMessage`, the agent workflow's default). */
export const onMessage = handleMessages(referenceBot, {
  // `help` while signup waits for an answer: answered, ending with the pending question again.
  commands: { help: async (message, pending) => void (await reply(message, helpWhileWaiting(pending))) },
});
