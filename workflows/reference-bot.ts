/**
 * The reference bot: an example of user code. It uses only amsflow's public workflow API.
 * `echo <text>` is answered with `<text>`, quoting the message; any other text gets the help.
 * This module is the default workflow bundle of the worker (`AMSFLOW_WORKFLOWS`).
 */
import { handleMessages, isText, reply, textOf, type MessageHandler } from './index';

export { agentWorkflow } from './index';

export const HELP_TEXT = ['I know these commands:', '• echo <text> — I repeat <text>'].join('\n');

const ECHO = /^\s*echo\s+([\s\S]+)$/i;

/** The bot's behaviour for one message. */
export const referenceBot: MessageHandler = async (message) => {
  // Reactions and media are not commands; stay quiet rather than answer each with the help.
  if (!isText(message)) return;
  const echo = ECHO.exec(textOf(message)!);
  // A reply lost to a crash mid-send is worse than the wait: let the agent settle it from receipts.
  await reply(message, echo ? echo[1] : HELP_TEXT, { reconcileAmbiguous: true });
};

/** The handler workflow (type `onMessage`, the agent workflow's default). */
export const onMessage = handleMessages(referenceBot);
