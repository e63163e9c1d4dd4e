/**
 * The status loop: typing indicators, paced by the typing counter's own window so they never
 * delay a reply; an indicator is shown at once or not at all. (Mark-reads ride with the poll
 * activity: see status-queue.ts and activities/mark-reads.ts.)
 */
import { condition } from '@temporalio/workflow';
import type { AgentRuntime } from './runtime';

/** Runs until continue-as-new begins (pending typing indicators are dropped: they would be late). */
export async function runStatusLoop(rt: AgentRuntime): Promise<void> {
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
    } catch (err) {
      confirm(rt.now());
      rt.noteError('status', err);
    }
  }
}
