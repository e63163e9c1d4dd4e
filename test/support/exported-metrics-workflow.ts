/**
 * A workflow that calls each of amsflow's workflow metric hooks (workflows/author/metrics.ts)
 * once, as amsflow's workflows call them, for exported-metrics.ts: their values reach a worker's
 * registry by the path they take in production (the SDK's workflow metric sink, then the worker's
 * meter), with the labels they really carry.
 */
import {
  countAgentRefusal,
  countApproval,
  countDroppedSignal,
  countHandlerStart,
  countReminderFired,
  countSendFailure,
  reportOutbox,
} from '../../workflows/author/metrics';

export async function everyMetricHook(agentKey: string): Promise<void> {
  const now = Date.now();
  reportOutbox({
    agentKey,
    outbox: { length: 2 },
    windows: { messages: { snapshot: () => [now - 1000, now - 500] } },
    input: { limits: { windowMs: 60_000, messages: 20 } },
    now: () => now,
  });
  countHandlerStart(agentKey);
  countReminderFired(agentKey, 'delivered');
  countApproval(agentKey, 'approved');
  countDroppedSignal('agentWorkflow', 'amsflow.wake');
  countAgentRefusal(agentKey, 'messages', 401);
  countSendFailure(agentKey, 'SendRejected');
}
