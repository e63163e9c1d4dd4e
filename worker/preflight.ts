/**
 * The check `npm start` / `npm run worker` make before anything starts (the Temporal runtime,
 * the metrics endpoint, the embedded server or simulator, the data dir): the configuration and
 * every port it will listen on, all problems in one {@link ConfigError}.
 */
import { ConfigError, loadConfig, type WorkerConfig } from './config';
import { plannedPorts, portProblems } from './ports';

/** Options of {@link checkedConfig}. */
export interface PreflightOptions {
  /** How long a taken port may take to become free (default 5 s; see `portProblems`). */
  portWaitMs?: number;
}

/** The configuration from `env`, once nothing in it or in the way of its ports is wrong. */
export async function checkedConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: PreflightOptions = {},
): Promise<WorkerConfig> {
  const problems: string[] = [];
  let config: WorkerConfig | undefined;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  problems.push(...(await portProblems(plannedPorts(env), options.portWaitMs)));
  if (problems.length > 0 || !config) throw new ConfigError(problems);
  return config;
}
