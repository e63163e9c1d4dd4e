/**
 * A fleet changes while it runs: the agents file (`AMSFLOW_AGENTS_FILE`) is read again when it
 * changes (watched every `intervalMs`) and on SIGHUP, and the worker takes the difference without
 * a restart: new agents get their client and their agent workflow, a new token or service takes
 * effect at once (and the agent is resumed, in case a refusal had stopped it), a removed agent's
 * client goes (its agent workflow stops polling, refused as an unknown agent, until a worker
 * serves it again). One line in the log says what changed; a file with a problem changes nothing
 * and says why. The difference itself is pure ({@link fleetDiff}).
 */
import type { AgentConfig } from './agents-file';
import { readAgentsFile } from './agents-file';
import type { AgentRegistry } from './agent-registry';
import { watchFileContent } from './file-watch';
import type { Log } from './run-types';

export interface FleetDiff {
  added: AgentConfig[];
  /** Known agents with another token or service. */
  replaced: AgentConfig[];
  removed: string[];
  /** Known agents whose other settings changed: they apply when its workflow is started afresh. */
  restartOnly: string[];
}

/** What changed from `before` to `after`, by agent key. Pure. */
export function fleetDiff(before: readonly AgentConfig[], after: readonly AgentConfig[]): FleetDiff {
  const old = new Map(before.map((a) => [a.agentKey, a]));
  const now = new Map(after.map((a) => [a.agentKey, a]));
  const diff: FleetDiff = { added: [], replaced: [], removed: [], restartOnly: [] };
  for (const agent of after) {
    const known = old.get(agent.agentKey);
    if (!known) diff.added.push(agent);
    else if (known.token !== agent.token || known.baseUrl !== agent.baseUrl) diff.replaced.push(agent);
    else if (settings(known) !== settings(agent)) diff.restartOnly.push(agent.agentKey);
  }
  for (const key of old.keys()) if (!now.has(key)) diff.removed.push(key);
  return diff;
}

const settings = (a: AgentConfig) =>
  JSON.stringify([a.recipient, a.handlerWorkflowType, a.timeZone, a.tokenEnv ?? null]);

/** The log line for `diff` (no tokens in it), or undefined when nothing changed. */
export function describeDiff(diff: FleetDiff): string | undefined {
  const parts: string[] = [];
  const keys = (agents: readonly { agentKey: string }[] | readonly string[]) =>
    agents.map((a) => (typeof a === 'string' ? a : a.agentKey)).join(', ');
  if (diff.added.length > 0) parts.push(`added ${keys(diff.added)}`);
  if (diff.replaced.length > 0) parts.push(`new token or service for ${keys(diff.replaced)}`);
  if (diff.removed.length > 0) parts.push(`removed ${keys(diff.removed)} (they stop polling)`);
  if (diff.restartOnly.length > 0)
    parts.push(`settings of ${keys(diff.restartOnly)} changed (they apply when the agent starts afresh)`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

export interface FleetWatchOptions {
  file: string;
  env: NodeJS.ProcessEnv;
  defaultBaseUrl: string | undefined;
  registry: AgentRegistry;
  agents: readonly AgentConfig[];
  /** Starts (or finds) and resumes the agent workflows of `agents`; tokens registered for redaction. */
  apply(diff: FleetDiff, agents: readonly AgentConfig[]): Promise<void>;
  log: Log;
  intervalMs?: number;
}

/** Watches the agents file and SIGHUP; `stop()` ends both. */
export function watchFleet(options: FleetWatchOptions): { reload(): Promise<void>; stop(): void } {
  let current = [...options.agents];
  let running = Promise.resolve();
  const reload = (): Promise<void> => {
    running = running.then(async () => {
      const read = readAgentsFile(options.file, options.env, options.defaultBaseUrl);
      if (read.problems.length > 0) {
        options.log(`amsflow: agents file ${options.file} not applied: ${read.problems.join('; ')}`);
        return;
      }
      const diff = fleetDiff(current, read.agents);
      const line = describeDiff(diff);
      if (!line) return;
      for (const agent of [...diff.added, ...diff.replaced]) options.registry.set(agent);
      for (const key of diff.removed) options.registry.remove(key);
      current = read.agents;
      await options.apply(diff, read.agents);
      options.log(`amsflow: agents file reloaded: ${line}`);
    });
    return running.catch((err: unknown) =>
      options.log(`amsflow: agents file ${options.file} not applied: ${(err as Error).message}`),
    );
  };
  const onChange = () => void reload();
  const unwatch = watchFileContent(options.file, options.intervalMs ?? 2000, onChange);
  process.on('SIGHUP', onChange);
  return {
    reload,
    stop() {
      unwatch();
      process.off('SIGHUP', onChange);
    },
  };
}
