/** Waits for a conversation to have asked its agent for the routing proof (protocol/conversations.ts). */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { waitFor } from './temporal';

const T = temporal.api.enums.v1.EventType;

/**
 * Resolves once `workflowId`, past its first `after` history events, has asked its agent for the
 * routing proof (the `amsflowRoutedByAgent` activity completed) and finished the task that read it.
 */
export async function proofAsked(client: Client, workflowId: string, after: number): Promise<void> {
  await waitFor(
    `${workflowId} to check the message with its agent`,
    async () => {
      const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const later = events.slice(after);
      const scheduled = later.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'amsflowRoutedByAgent',
      );
      if (!scheduled) return false;
      const done = later.findIndex(
        (e) =>
          e.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() ===
          scheduled.eventId?.toString(),
      );
      return done >= 0 && later.slice(done).some((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    },
    { timeoutMs: 60_000 },
  );
}
