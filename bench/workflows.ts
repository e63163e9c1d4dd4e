/**
 * The bench's workflow bundle (`AMSFLOW_WORKFLOWS`): the real agent and reminders workflows and
 * the reference bot, plus commands for the send-budget bench (bench/send-budget.ts).
 *   "burst <n> <tag> [<ms>]"  shows typing, then requests n sends: "<tag> 0" … "<tag> n−1", all
 *                             at once, or (with <ms>) the first half at once and the second
 *                             half <ms> later (a durable timer between the two waves)
 *   "remind <epoch ms> <n> <tag>"  sets n reminders due then ("<tag> r0" …); sends nothing
 *   "typing"                  shows the typing indicator and sends nothing (it is marked read)
 * Anything else goes to the reference bot (`echo <text>`, ...).
 */
import { sleep } from '@temporalio/workflow';
import { handleMessages, remindAt, sendText, textOf, typing } from '../workflows';
import { referenceBot } from '../examples/reference/bot';

export { agentWorkflow, remindersWorkflow } from '../workflows/engine-workflows';

const BURST = /^burst (\d+) (\S+)(?: (\d+))?$/;
const REMIND = /^remind (\d+) (\d+) (\S+)$/;

async function burst(n: number, tag: string, secondWaveAfterMs?: number): Promise<void> {
  const send = (from: number, to: number) =>
    Promise.all(Array.from({ length: to - from }, (_, i) => sendText(`${tag} ${from + i}`)));
  if (secondWaveAfterMs === undefined) {
    await send(0, n);
    return;
  }
  const half = Math.ceil(n / 2);
  await send(0, half);
  await sleep(secondWaveAfterMs);
  await send(half, n);
}

/** The handler workflow (type `onMessage`, the agent workflow's default). */
export const onMessage = handleMessages(async (message, ctx) => {
  const text = textOf(message) ?? '';
  const b = BURST.exec(text);
  if (b) {
    await typing(message);
    await burst(Number(b[1]), b[2], b[3] === undefined ? undefined : Number(b[3]));
    return;
  }
  const r = REMIND.exec(text);
  if (r) {
    for (let k = 0; k < Number(r[2]); k++) await remindAt(Number(r[1]), `${r[3]} r${k}`);
    return;
  }
  if (text === 'typing') {
    await typing(message);
    return;
  }
  await referenceBot(message, ctx);
});
