/**
 * One-line metric hooks for workflow code, through the SDK's workflow `metricMeter`: its calls
 * are sink calls, made only outside replay and recording no command, so they cannot change a
 * history. Every worker takes them (a worker without amsflow's metrics hands them to the
 * Temporal runtime's meter); amsflow's worker turns them into `amsflow_*` series.
 */
import { metricMeter } from '@temporalio/workflow';
import { WORKFLOW_METRICS as M } from '../../protocol/observability';

/** What {@link reportOutbox} reads of the agent workflow's runtime (read only, nothing pruned). */
export interface OutboxView {
  agentKey: string;
  outbox: { length: number };
  windows: { messages: { snapshot(): number[] } };
  input: { limits: { windowMs: number; messages: number } };
  now(): number;
}

/** Reports the outbox length and the messages window's utilisation. */
export function reportOutbox(rt: OutboxView): void {
  const { windowMs, messages } = rt.input.limits;
  const since = rt.now() - windowMs;
  const used = rt.windows.messages.snapshot().filter((t) => t > since).length;
  metricMeter.createGauge(M.outboxLength, 'int').set(rt.outbox.length, { agent: rt.agentKey });
  metricMeter
    .createGauge(M.windowUtilisation, 'float')
    .set(Math.min(1, used / messages), { agent: rt.agentKey, endpoint: 'messages' });
}

/** Counts a handler workflow started for an inbound message. */
export function countHandlerStart(agentKey: string): void {
  metricMeter.createCounter(M.handlerStarts).add(1, { agent: agentKey });
}

/** Counts a reminder that came due, by what became of it. */
export function countReminderFired(agentKey: string, result: 'delivered' | 'failed' | 'skipped'): void {
  metricMeter.createCounter(M.remindersFired).add(1, { agent: agentKey, result });
}

/** Counts an approval decided. */
export function countApproval(agentKey: string, decision: string): void {
  metricMeter.createCounter(M.approvals).add(1, { agent: agentKey, decision });
}

/** Counts a signal dropped because its argument did not fit its schema (see checked-handlers.ts). */
export function countDroppedSignal(workflowType: string, signal: string): void {
  metricMeter.createCounter(M.droppedSignals).add(1, { workflow: workflowType, signal });
}

/** Counts a final refusal (a bad token, a 4xx) that stopped an agent's polling. */
export function countAgentRefusal(agentKey: string, endpoint: string, status: number | undefined): void {
  metricMeter
    .createCounter(M.agentRefusals)
    .add(1, { agent: agentKey, endpoint, status: status === undefined ? 'unknown' : String(status) });
}

/** Counts a send request the outbox gave up (its failure type). */
export function countSendFailure(agentKey: string, type: string): void {
  metricMeter.createCounter(M.sendFailures).add(1, { agent: agentKey, type });
}
