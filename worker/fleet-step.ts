/**
 * The fleet step of `runAmsflow`: with an agents file, the worker follows its changes while it
 * runs (worker/fleet-reload.ts): new agents are started and watched, agents with a new token are
 * resumed, and the tokens are registered for redaction before anything logs.
 */
import type { Client } from '@temporalio/client';
import { resumeAgentWorkflow } from '../protocol/agent-start';
import type { AgentRegistry } from './agent-registry';
import type { Cleanups } from './cleanups';
import type { AgentConfig, WorkerConfig } from './config';
import { ensureAgents } from './ensure-agents';
import { watchFleet } from './fleet-reload';
import type { Observability } from './observability';
import type { Log } from './run-types';

export function fleetStep(
  config: WorkerConfig,
  client: Client,
  registry: AgentRegistry,
  obs: Observability,
  agents: readonly AgentConfig[],
  log: Log,
  cleanups: Cleanups,
): void {
  if (!config.agentsFile) return;
  const fleet = watchFleet({
    file: config.agentsFile.path,
    env: process.env,
    defaultBaseUrl: config.agentsFile.defaultBaseUrl,
    registry,
    agents,
    log,
    apply: async (diff, now) => {
      obs.secrets([...diff.added, ...diff.replaced].map((a) => a.token));
      await ensureAgents(client, config, diff.added, log);
      // A refusal may have stopped it (the old token): with the new one it polls again.
      for (const agent of diff.replaced) await resumeAgentWorkflow(client, agent.agentKey, 'new token');
      obs.watchAgents(
        client,
        now.map((a) => a.agentKey),
      );
    },
  });
  cleanups.push(async () => fleet.stop());
}
