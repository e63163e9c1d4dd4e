/**
 * The status loops, on the statuses endpoint's own windows so they never delay a reply:
 * - mark-reads that no send took within the grace (a message with no reply yet), or that a
 *   vehicle told nothing of, go by a request of their own, paced by the statuses window (most
 *   ride with the reply's send instead: status-queue.ts);
 * - typing indicators, on the typing counter: shown at once or not at all; one shown marks its
 *   message read too.
 */
import { condition } from '@temporalio/workflow';
import type { AgentRuntime } from './runtime';

/**
 * Runs until continue-as-new begins (the mark-reads left are carried, due at once in the next
 * run). A request under way is awaited: the hand-over waits for this loop.
 */
export async function runMarkReadLoop(rt: AgentRuntime): Promise<void> {
  for (let n = 1; ; n++) {
    if (!(await untilOwnDue(rt))) return;
    const vehicle = `read#${n}`;
    const messageIds = rt.statuses.forOwn(vehicle, rt.now());
    if (messageIds.length === 0) continue;
    try {
      const report = await rt.acts.status.markRead({ agentKey: rt.agentKey, messageIds });
      rt.markReadsRode(vehicle, report);
    } catch (err) {
      rt.markReadsRode(vehicle, undefined);
      rt.noteError('status', err);
    }
  }
}

/**
 * Waits until a mark-read is due for a request of its own; false once continue-as-new begins. A
 * timer only while one waits for its time (and it is cancelled when a send takes it first): idle,
 * the loop costs nothing. Stopped by a refusal, mark-reads wait (they would be refused as well).
 */
async function untilOwnDue(rt: AgentRuntime): Promise<boolean> {
  const { lifecycle, statuses, status } = rt;
  for (;;) {
    if (lifecycle.draining) return false;
    if (status.refusal) {
      await condition(() => lifecycle.draining || status.refusal === undefined);
      continue;
    }
    const at = statuses.ownDueAt(rt.now());
    if (at !== undefined && at <= rt.now()) return true;
    const changed = () =>
      lifecycle.draining || status.refusal !== undefined || statuses.ownDueAt(rt.now()) !== at;
    if (at === undefined) await condition(changed);
    else await condition(changed, at - rt.now());
  }
}

/** Runs until continue-as-new begins (pending typing indicators are dropped: they would be late). */
export async function runTypingLoop(rt: AgentRuntime): Promise<void> {
  for (;;) {
    // Stopped by a refusal: typing waits too (it would be refused as well).
    await condition(
      () => rt.lifecycle.draining || (rt.statuses.hasTyping && rt.status.refusal === undefined),
    );
    if (rt.lifecycle.draining) return;
    const typingId = rt.statuses.takeTyping()!;
    // A late typing indicator is worse than none: skip it when the budget is spent.
    if (rt.windows.typing.delay(rt.now()) > 0) continue;
    const confirm = rt.windows.typing.record(rt.now());
    try {
      await rt.acts.status.sendTyping({ agentKey: rt.agentKey, messageId: typingId });
      confirm(rt.now());
      rt.statuses.typed(typingId);
    } catch (err) {
      confirm(rt.now());
      rt.noteError('status', err);
    }
  }
}
