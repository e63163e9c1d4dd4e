/**
 * Routing around "which one?" (rules in which-one.ts): a bare answer that fits several waits gets
 * the list; a reply to the list with a number gives the held answer to that wait; any other reply
 * to the list gets it again.
 */
import type { InboundMessage } from '../../protocol';
import { answer, deliverTo } from './delivery';
import type { AgentRuntime } from './runtime';
import { whichOneText, type WhichChoice } from './which-one';

/** What a pick from a list gets when that question was answered or ended meanwhile. */
export const NOT_WAITING_TEXT = 'That question is not waiting for an answer any more.';

/** Answers `message` with the list of `waits`, and remembers it for the replies to it. */
export function askWhichOne(
  rt: AgentRuntime,
  message: InboundMessage,
  answerWord: InboundMessage,
  waits: { workflowId: string; label: string }[],
): void {
  const requestId = answer(rt, message, 'which', whichOneText(waits.map((w) => w.label)));
  rt.router.whichOnes.asked(requestId, { answer: answerWord, workflowIds: waits.map((w) => w.workflowId) });
}

/** Routes `message` (arrival `seq`), a reply to a "which one?" list. */
export async function routeChoice(
  rt: AgentRuntime,
  message: InboundMessage,
  seq: number,
  choice: WhichChoice,
): Promise<void> {
  if (choice.kind === 'again') {
    // The list again, of the waits that still wait (numbered anew).
    const waits = rt.router.wordWaits(choice.list.workflowIds);
    if (waits.length > 0) askWhichOne(rt, message, choice.list.answer, waits);
    else answer(rt, message, 'which', NOT_WAITING_TEXT);
    return;
  }
  const waiter = rt.router.takeWordWaiter(choice.workflowId);
  if (waiter && (await deliverTo(rt, waiter, choice.answer, seq))) return;
  answer(rt, message, 'which', NOT_WAITING_TEXT);
}
