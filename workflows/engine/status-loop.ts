/**
 * The status loop: typing indicators and mark-reads, each paced by its own window so neither
 * ever delays a reply. Mark-reads are retried as the status queue's policy says; a typing
 * indicator is shown at once or not at all.
 */
import { condition } from '@temporalio/workflow';
import { failureInfo, requestVerdict } from './failure';
import type { AgentRuntime } from './runtime';
import { FRESH_RETRY_STATE, retryAfterRejection } from './send-policy';

/** Runs until continue-as-new begins (pending mark-reads are carried to the next run). */
export async function runStatusLoop(rt: AgentRuntime): Promise<void> {
  for (;;) {
    // Stopped by a refusal: mark-reads and typing wait too (they would be refused as well).
    await condition(() => rt.lifecycle.draining || (!rt.statuses.isEmpty && rt.status.refusal === undefined));
    if (rt.lifecycle.draining) return;
    const typingId = rt.statuses.takeTyping();
    if (typingId !== undefined) {
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
      continue;
    }
    const head = rt.statuses.headMarkRead()!;
    const confirm = await rt.pace(rt.windows.statuses, head);
    try {
      await rt.acts.status.markRead({ agentKey: rt.agentKey, messageId: head.messageId });
      confirm(rt.now());
      rt.statuses.markReadDone();
    } catch (err) {
      confirm(rt.now());
      rt.noteError('status', err);
      const verdict = requestVerdict(failureInfo(err));
      if (verdict.kind === 'final') {
        rt.statuses.markReadFailed(rt.now(), 'final');
      } else {
        const tries = {
          ...FRESH_RETRY_STATE,
          transient: head.failures ?? 0,
          rateLimitedWithoutHint: head.failures ?? 0,
        };
        const rejection = verdict.kind === 'rejected' ? verdict.rejection : {};
        const { waitMs } = retryAfterRejection(tries, rejection, rt.tuning, () => Math.random());
        rt.statuses.markReadFailed(rt.now(), { waitMs: Math.min(waitMs, rt.tuning.backoffMaxMs) });
      }
    }
  }
}
