/**
 * The agents file (`AMSFLOW_AGENTS_FILE`): read and checked at start (worker/config.ts) and again
 * when it changes while the worker runs (worker/fleet-reload.ts). Every bad entry is reported, by
 * its agentKey and the file, never with a token.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { canonicalTimeZone, isTimeZone } from '../core/zoned-time';
import { AGENT_KEY_PATTERN } from '../protocol/agent';
import { BaseUrlSchema, parseAgentEntries } from './config-checks';
import { nonEmpty } from './config-schemas';

/** One agent served by this worker. */
export const AgentConfigSchema = z
  .object({
    /** The operator's name for the agent; its workflow is `agent:<agentKey>`. */
    agentKey: nonEmpty.regex(
      AGENT_KEY_PATTERN,
      'use 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit',
    ),
    /** The agent's API token, or `tokenEnv`: the name of a variable holding it. */
    token: nonEmpty.optional(),
    tokenEnv: nonEmpty.optional(),
    baseUrl: BaseUrlSchema.optional(),
    recipient: nonEmpty.optional(),
    handlerWorkflowType: nonEmpty.optional(),
    /** The human's IANA time zone (`Europe/Berlin`) until they set one in the chat; default `AMSFLOW_TIMEZONE`. */
    timeZone: nonEmpty
      .refine(isTimeZone, (zone) => ({
        message: `${JSON.stringify(zone)} is not an IANA time zone (like Europe/Berlin)`,
      }))
      .transform(canonicalTimeZone)
      .optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfigSchema> & { token: string };

/** The agents the file lists (each without a `baseUrl` takes `defaultBaseUrl`), or its problems. */
export function readAgentsFile(
  path: string,
  env: NodeJS.ProcessEnv,
  defaultBaseUrl: string | undefined,
): { agents: AgentConfig[]; problems: string[] } {
  const file = isAbsolute(path) ? path : resolve(path);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return {
      agents: [],
      problems: [`AMSFLOW_AGENTS_FILE: cannot read ${file} as JSON (${(err as Error).message})`],
    };
  }
  const entries = parseAgentEntries(raw, AgentConfigSchema, env, file);
  const agents = entries.agents.map((agent) => ({ ...agent, baseUrl: agent.baseUrl ?? defaultBaseUrl }));
  return { agents, problems: entries.problems };
}

/** The agents' own time zones (agentKey -> zone) of those that have one in the agents file. */
export function agentTimeZones(agents: readonly AgentConfig[]): Record<string, string> {
  return Object.fromEntries(agents.flatMap((a) => (a.timeZone ? [[a.agentKey, a.timeZone]] : [])));
}
