/** The answer to the agent's `state` query (`amsflow state`): read from the parts, changes nothing. */
import { workflowInfo } from '@temporalio/workflow';
import type { AgentStateView } from '../../protocol';
import type { AgentRuntime } from './runtime';

export function stateView(rt: AgentRuntime): AgentStateView {
  const { refusal, lastError } = rt.status;
  const { endedAt, dueBy } = rt.deadline;
  return {
    agentKey: rt.agentKey,
    generation: rt.generation,
    offset: rt.cursor.offset,
    recipientKnown: rt.cursor.recipient !== undefined,
    queueLength: rt.outbox.length,
    sending: rt.outbox.sending?.requestId,
    waiters: rt.router.counts,
    pendingMarkRead: rt.statuses.pendingMarkRead,
    dropped: { markRead: rt.statuses.dropped, receipts: rt.ledger.dropped, flood: rt.inbound.dropped },
    historyLength: workflowInfo().historyLength,
    draining: rt.lifecycle.draining,
    lastError,
    failedSends: rt.status.failedSends,
    counters: rt.tally.snapshot(),
    status: refusal?.status ?? 'running',
    ...(refusal ? { refusal } : {}),
    poll: {
      ...(endedAt === undefined ? {} : { lastEndedAt: new Date(endedAt).toISOString() }),
      ...(dueBy === undefined || rt.lifecycle.draining ? {} : { dueBy: new Date(dueBy).toISOString() }),
    },
  };
}
