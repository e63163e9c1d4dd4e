/**
 * The agents step of `runAmsflow`: each agent's workflow is started (or found running) with this
 * worker's settings, and resumed if a refusal stopped it. A fleet of thousands starts in parallel
 * (a bounded number of calls in flight); one line per agent for a small fleet, one in all for a
 * large one.
 */
import type { Client } from '@temporalio/client';
import { mapLimited } from '../core/map-limited';
import { resolveLimits } from '../messaging/limits';
import { startOrResumeAgentWorkflow } from '../protocol/agent-start';
import type { AgentTuning } from '../protocol/agent';
import type { AgentConfig, WorkerConfig } from './config';
import type { Log } from './run-types';

/**
 * New messages a minute an agent of a worker with a model takes in by default (`inboundBudget`):
 * each starts a model call, which costs money, so a flood is not handled past the service's own
 * pace of replies (12 sends a minute). Set `inboundBudget` in `AMSFLOW_TUNING` (0: none).
 */
export const MODEL_AGENT_INBOUND_BUDGET = 12;

/** The tuning an agent is started with: the worker's, with a model agent's inbound budget by default. */
export function agentTuningOf(tuning: AgentTuning, worker: { model: boolean }): AgentTuning {
  return worker.model && tuning.inboundBudget === undefined
    ? { ...tuning, inboundBudget: MODEL_AGENT_INBOUND_BUDGET }
    : tuning;
}

/** Starts in flight at once: enough to start 10,000 agents in seconds, few enough for the server. */
const STARTS_IN_FLIGHT = 32;
/** Up to this many agents, one line each. */
const LINES_PER_AGENT_UP_TO = 20;

export async function ensureAgents(
  client: Client,
  config: WorkerConfig,
  agents: readonly AgentConfig[],
  log: Log,
): Promise<void> {
  const started = Date.now();
  await mapLimited(agents, STARTS_IN_FLIGHT, async (agent) => {
    // An agent a refusal stopped (a bad token) polls again: this worker may hold a new token.
    await startOrResumeAgentWorkflow(
      client,
      {
        agentKey: agent.agentKey,
        taskQueue: config.taskQueue,
        limits: resolveLimits(config.limits),
        tuning: agentTuningOf(config.tuning, { model: config.model !== undefined }),
        handlerWorkflowType: agent.handlerWorkflowType,
        recipient: agent.recipient,
        botConfig: config.botConfig,
      },
      'worker start',
    );
    if (agents.length <= LINES_PER_AGENT_UP_TO)
      log(`amsflow: agent "${agent.agentKey}" is running (workflow agent:${agent.agentKey})`);
  });
  if (agents.length > LINES_PER_AGENT_UP_TO)
    log(`amsflow: ${agents.length} agents are running (started in ${Date.now() - started} ms)`);
}
