/**
 * The agents step of `runAmsflow`: each agent's workflow is started (or found running) with this
 * worker's settings, and resumed if a refusal stopped it.
 */
import type { Client } from '@temporalio/client';
import { resolveLimits } from '../messaging/limits';
import { resumeAgentWorkflow, startAgentWorkflow } from '../protocol/agent-start';
import type { AgentConfig, WorkerConfig } from './config';
import type { Log } from './run-types';

export async function ensureAgents(
  client: Client,
  config: WorkerConfig,
  agents: readonly AgentConfig[],
  log: Log,
): Promise<void> {
  for (const agent of agents) {
    await startAgentWorkflow(client, {
      agentKey: agent.agentKey,
      taskQueue: config.taskQueue,
      limits: resolveLimits(config.limits),
      tuning: config.tuning,
      handlerWorkflowType: agent.handlerWorkflowType,
      recipient: agent.recipient,
      botConfig: config.botConfig,
    });
    // An agent a refusal stopped (a bad token) polls again: this worker may hold a new token.
    await resumeAgentWorkflow(client, agent.agentKey, 'worker start');
    log(`amsflow: agent "${agent.agentKey}" is running (workflow agent:${agent.agentKey})`);
  }
}
