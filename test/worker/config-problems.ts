import { ConfigError, loadConfig } from '../../worker/config';

/** The problems `loadConfig` names for `env`; fails if it accepts it. */
export function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error(`expected a ConfigError; accepted: ${JSON.stringify(env)}`);
}
