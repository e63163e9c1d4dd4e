/**
 * The ports a start will listen on, checked all at once before anything starts: each one taken
 * is named with the variable that moves it, so that one start finds every conflict (not one per
 * start). Read from the environment variable by variable, so that the ports are checked even
 * when other variables are bad (their problems are listed in the same message).
 */
import { loadTemporalProfile } from '../tools/temporal-profile';
import { EnvSchema } from './config';
import { portTaken } from './port-probes';

/** A port a start listens on, and what a person should know to free or move it. */
export interface PlannedPort {
  /** The variable that moves it (README's table of variables). */
  variable: string;
  port: number;
  host: string;
  /** What listens there, for the message. */
  what: string;
}

const set = (value: string | undefined) => value !== undefined && value.trim() !== '';

/** A port variable's value (with its default), or undefined when it is bad (reported elsewhere) or 0. */
function portOf(env: NodeJS.ProcessEnv, variable: keyof typeof EnvSchema.shape): number | undefined {
  const parsed = EnvSchema.shape[variable].safeParse(env[variable]);
  return parsed.success && typeof parsed.data === 'number' && parsed.data !== 0 ? parsed.data : undefined;
}

/** The fixed ports the worker configured by `env` will listen on (`0`, any free port, is not one). */
export function plannedPorts(env: NodeJS.ProcessEnv): PlannedPort[] {
  const planned: PlannedPort[] = [];
  const add = (variable: keyof typeof EnvSchema.shape, what: string, host = '127.0.0.1') => {
    const port = portOf(env, variable);
    if (port !== undefined) planned.push({ variable, port, host, what });
  };
  if (!temporalConfigured(env)) {
    add('AMSFLOW_DEV_SERVER_PORT', 'the embedded Temporal server (gRPC)');
    add('AMSFLOW_DEV_SERVER_UI_PORT', 'the Temporal UI');
  }
  if (!set(env.AMSFLOW_AGENTS_FILE) && !set(env.AMS_TOKEN)) {
    add('AMSFLOW_SIMULATOR_PORT', 'the web chat and the embedded simulator');
  }
  const host = env.AMSFLOW_METRICS_HOST?.trim() || '127.0.0.1';
  add('AMSFLOW_METRICS_PORT', 'the metrics and health endpoint', host);
  return planned;
}

/** Resolves true once the port is free, false if it is still taken after `waitMs`. */
async function becomesFree(port: PlannedPort, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (await portTaken(port.port, port.host)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

/**
 * Every problem with the planned ports: two variables on one port, and each port in use. A taken
 * port gets `waitMs` to become free: the dev server of a run that was just killed is being
 * stopped by its watchdog.
 */
export async function portProblems(planned: PlannedPort[], waitMs = 5_000): Promise<string[]> {
  const problems: string[] = [];
  const first = new Map<number, PlannedPort>();
  const distinct: PlannedPort[] = [];
  for (const p of planned) {
    const other = first.get(p.port);
    if (other) problems.push(`${p.variable}: ${p.port} is ${other.variable} too; give each its own port`);
    else {
      first.set(p.port, p);
      distinct.push(p);
    }
  }
  const free = await Promise.all(distinct.map((p) => becomesFree(p, waitMs)));
  distinct.forEach((p, i) => {
    if (free[i]) return;
    problems.push(
      `${p.variable}: ${p.host}:${p.port}, the port of ${p.what}, is in use, most likely by an ` +
        `npm start still running or another program (find it with \`ss -ltnp 'sport = :${p.port}'\` ` +
        `or \`lsof -iTCP:${p.port} -sTCP:LISTEN\`): stop it, or set ${p.variable} to another port`,
    );
  });
  return problems;
}

/** Whether `env` configures a Temporal to connect to (a bad configuration is reported elsewhere). */
function temporalConfigured(env: NodeJS.ProcessEnv): boolean {
  try {
    return loadTemporalProfile(env) !== undefined;
  } catch {
    return true;
  }
}
