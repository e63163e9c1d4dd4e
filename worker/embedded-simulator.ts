/**
 * The embedded simulator step of `runAmsflow`: with no token, the demo's simulator serves the one
 * agent (its state under the data dir's `demo/`), and the agent talks to it with a fresh token.
 */
import { basename } from 'node:path';
import { newAgentToken, SimulatorStateError, startSimulator, type RunningSimulator } from '../simulator';
import type { AgentConfig, WorkerConfig } from './config';
import { claimablePort, PortInUseError } from './dev-server';

/** The embedded simulator and the agents as the workers serve them (with its URL and token). */
export interface EmbeddedSimulator {
  simulator: RunningSimulator;
  agents: AgentConfig[];
}

/** The chat's header names the bot: its module's name ("reference bot"). */
function botName(workflowsPath: string): string {
  return basename(workflowsPath)
    .replace(/\.[cm]?[jt]s$/, '')
    .replace(/[-_]+/g, ' ');
}

/**
 * Starts the simulator on `AMSFLOW_SIMULATOR_PORT`, resumed from `stateFile`. Its port is checked
 * first, and a state file it cannot use is reported with how to start the demo afresh.
 */
export async function startEmbeddedSimulator(
  config: WorkerConfig,
  stateFile: string | undefined,
  demoDir: string | undefined,
): Promise<EmbeddedSimulator> {
  if (config.simulatorPort !== 0) await claimablePort(config.simulatorPort, 'simulator', 5_000);
  // A new token each start: the token is never in workflow state, only in this process.
  const token = newAgentToken();
  const agent = config.agents[0];
  const simulator = await startSimulator({
    port: config.simulatorPort,
    agents: [
      {
        id: agent.agentKey,
        token,
        creator: 'user:1001',
        creatorName: 'You',
        name: botName(config.workflowsPath),
      },
    ],
    limits: config.limits,
    stateFile,
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new PortInUseError(config.simulatorPort, 'simulator');
    if (err instanceof SimulatorStateError) {
      throw new SimulatorStateError(
        err.file,
        err.problem,
        `stop amsflow and delete ${demoDir} (the chat and the demo's Temporal data go together)`,
      );
    }
    throw err;
  });
  return { simulator, agents: [{ ...agent, token, baseUrl: simulator.url }] };
}
