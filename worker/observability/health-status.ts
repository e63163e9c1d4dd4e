/**
 * An agent's health as the worker judges it (`agent-health.ts`) and reports it (`/readyz`, the
 * `amsflow_agent_*` metrics): apart, so that the metrics need not import the monitor.
 */

/**
 * What an agent is: fine, or why not. `approval_stuck`: the agent itself is fine, but one of its
 * approvals keeps failing its workflow task (the human's answers to it go nowhere).
 */
export const AGENT_HEALTH_STATUSES = [
  'ok',
  'unauthorized',
  'refused',
  'task_failing',
  'not_polling',
  'not_running',
  'approval_stuck',
  'unknown',
] as const;
export type AgentHealthStatus = (typeof AGENT_HEALTH_STATUSES)[number];

/** A workflow of the agent's (an approval) that is not making progress: its workflow task keeps failing. */
export interface StuckWorkflow {
  workflowId: string;
  /** The pending workflow task's attempt (2 or more). */
  workflowTaskAttempt: number;
}

export interface AgentHealth {
  agentKey: string;
  status: AgentHealthStatus;
  /** Why not ok, with what to do. */
  reason?: string;
  /** The pending workflow task's attempt, when one is pending. */
  workflowTaskAttempt?: number;
  /** Seconds past the time the agent's next poll should have ended (0 when on time). */
  pollOverdueSeconds?: number;
  /** The agent's approvals whose workflow task keeps failing (listed whatever the status). */
  stuckApprovals?: StuckWorkflow[];
  checkedAt: string;
}
