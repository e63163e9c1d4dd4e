/**
 * The bench's workflow bundle (`AMSFLOW_WORKFLOWS`): the real agent workflow and the reference
 * bot, plus two commands for the send-budget bench (bench/send-budget.ts).
 *   "burst <n> <tag>"  shows typing, then requests n sends at once: "<tag> 0" … "<tag> n−1"
 *   "typing"           shows the typing indicator and sends nothing (the message is marked read)
 * Anything else goes to the reference bot (`echo <text>`, ...).
 */
import { handleMessages, sendText, textOf, typing } from '../workflows';
import { referenceBot } from '../examples/reference/bot';

export { agentWorkflow } from '../workflows';

const BURST = /^burst (\d+) (\S+)$/;

/** The handler workflow (type `onMessage`, the agent workflow's default). */
export const onMessage = handleMessages(async (message, ctx) => {
  const text = textOf(message) ?? '';
  const burst = BURST.exec(text);
  if (burst) {
    await typing(message);
    const n = Number(burst[1]);
    await Promise.all(Array.from({ length: n }, (_, i) => sendText(`${burst[2]} ${i}`)));
    return;
  }
  if (text === 'typing') {
    await typing(message);
    return;
  }
  await referenceBot(message, ctx);
});
