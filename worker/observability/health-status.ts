/**
 * An agent's health as the worker judges it (`agent-health.ts`) and reports it (`/readyz`, the
 * `amsflow_agent_up` metric): apart, so that the metrics need not import the monitor.
 */

/** What an agent is: fine, or why not. */
export const AGENT_HEALTH_STATUSES = [
  'ok',
  'unauthorized',
  'refused',
  'task_failing',
  'not_polling',
  'not_running',
  'unknown',
] as const;
export type AgentHealthStatus = (typeof AGENT_HEALTH_STATUSES)[number];

export interface AgentHealth {
  agentKey: string;
  status: AgentHealthStatus;
  /** Why not ok, with what to do. */
  reason?: string;
  /** The pending workflow task's attempt, when one is pending. */
  workflowTaskAttempt?: number;
  /** Seconds past the time the agent's next poll should have ended (0 when on time). */
  pollOverdueSeconds?: number;
  checkedAt: string;
}
