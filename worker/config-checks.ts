/**
 * Checks of the worker configuration that need more than a type: the service's base URL (and a
 * model provider's: the same rule for where a secret may go), the shape of a token, and the
 * agents file entry by entry. Pure: `loadConfig` (config.ts) calls them
 * and reports every problem at once, before anything starts. No message echoes a token; a URL is
 * shown without its credentials or query.
 */
import { z } from 'zod';
import { tokenProblem } from '../messaging/client-options';

/** The version prefix every base URL ends in (the spec's agent API). */
export const VERSION_PREFIX = '/agent/v1';
const EXAMPLE = `https://ams.example.com${VERSION_PREFIX}`;

/** Hosts plain http may go to: this machine. Anywhere else, the token would cross a network in clear. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** Why `value` cannot be an agent API base URL, or undefined when it can. */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return `is not an absolute URL: use the service root with its version prefix, like ${EXAMPLE}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `uses ${url.protocol}, not https: use the service root with its version prefix, like ${EXAMPLE}`;
  }
  const shown = `${url.origin}${url.pathname}`;
  const clear = plainHttpProblem(url, 'the token');
  if (clear) return clear;
  if (!url.pathname.replace(/\/+$/, '').endsWith(VERSION_PREFIX)) {
    return `${shown} does not end in the version prefix ${VERSION_PREFIX} (like ${EXAMPLE})`;
  }
  return undefined;
}

/** Why `url` would carry `secret` in clear across a network, or undefined: http beyond this machine. */
function plainHttpProblem(url: URL, secret: string): string | undefined {
  if (url.protocol !== 'http:' || isLoopback(url.hostname)) return undefined;
  return (
    `${url.origin}${url.pathname} is plain http to another host: ${secret} would travel unencrypted; ` +
    'use https (plain http is accepted only for this machine: localhost, 127.0.0.1, [::1])'
  );
}

/**
 * Why `value` cannot be a model provider's base URL (`OPENAI_BASE_URL`), or undefined: as for the
 * service's, https unless it is this machine, since every request carries the provider's API key
 * (`keyVariable`). Any path: providers and OpenAI-compatible servers differ there.
 */
export function providerUrlProblem(value: string, keyVariable: string): string | undefined {
  const example = 'https://llm.example.com/v1';
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return `is not an absolute URL (like ${example})`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `uses ${url.protocol}, not https (like ${example})`;
  }
  return plainHttpProblem(url, `the API key (${keyVariable})`);
}

/** A base URL (`AMS_BASE_URL`, an agents file's `baseUrl`), checked by {@link baseUrlProblem}. */
export const BaseUrlSchema = z.string().superRefine((value, ctx) => {
  const problem = baseUrlProblem(value);
  if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
});

/**
 * Why a token (already trimmed of surrounding whitespace) cannot be sent, or undefined. A space,
 * line break, control or non-ASCII character inside is a paste gone wrong: it cannot go in an
 * `Authorization` header, and would fail later as a misleading transport error. The messaging
 * client's own rule (it refuses such a token too).
 */
export { tokenProblem };

/** The fields of an agents file entry these checks read; the schema may add any others. */
export interface AgentEntry {
  agentKey: string;
  token?: string;
  tokenEnv?: string;
}

/** What {@link parseAgentEntries} found: the entries with their tokens, and every problem. */
export interface AgentEntries<T extends AgentEntry> {
  agents: (T & { token: string })[];
  problems: string[];
}

/** `entry 2 (agent "b")`: how a problem names an entry, with the key when there is one. */
function entryName(raw: unknown, index: number): string {
  const key = (raw as { agentKey?: unknown } | null)?.agentKey;
  return typeof key === 'string' && key.trim() !== ''
    ? `entry ${index + 1} (agent "${key}")`
    : `entry ${index + 1}`;
}

/**
 * The token of an entry, from `token` or the variable `tokenEnv` names, or its problem. Read from
 * the entry as written, so that an entry with other problems still has its token checked; a
 * field of the wrong type is left to the schema.
 */
function entryToken(entry: object, env: NodeJS.ProcessEnv): { token?: string; problem?: string } {
  const { token: inline, tokenEnv } = entry as { token?: unknown; tokenEnv?: unknown };
  if (typeof inline === 'string') {
    const problem = tokenProblem(inline.trim());
    return problem ? { problem: `token: ${problem}` } : { token: inline.trim() };
  }
  if (inline !== undefined || (tokenEnv !== undefined && typeof tokenEnv !== 'string')) return {};
  if (tokenEnv === undefined || tokenEnv.trim() === '') {
    return { problem: 'needs "token", or "tokenEnv" naming the variable that holds it' };
  }
  const token = env[tokenEnv]?.trim();
  if (!token) return { problem: `tokenEnv: the variable ${tokenEnv} is not set (or empty)` };
  const problem = tokenProblem(token);
  return problem ? { problem: `tokenEnv: the variable ${tokenEnv} ${problem}` } : { token };
}

/**
 * Every entry of an agents file, each checked on its own so that every bad one is reported (by
 * its position, its agentKey and the file), not only the first.
 */
export function parseAgentEntries<T extends AgentEntry>(
  raw: unknown,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  env: NodeJS.ProcessEnv,
  file: string,
): AgentEntries<T> {
  const where = `AMSFLOW_AGENTS_FILE ${file}`;
  if (!Array.isArray(raw)) {
    const got = raw === null ? 'null' : typeof raw;
    return { agents: [], problems: [`${where}: Expected array of agents, received ${got}`] };
  }
  if (raw.length === 0) return { agents: [], problems: [`${where}: lists no agents`] };
  const agents: (T & { token: string })[] = [];
  const problems: string[] = [];
  const keys = new Set<string>();
  raw.forEach((item: unknown, index) => {
    const name = `${where}, ${entryName(item, index)}`;
    const parsed = schema.safeParse(item);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.join('.');
        problems.push(`${name}: ${path ? `${path}: ` : ''}${issue.message}`);
      }
    }
    const { token, problem } =
      typeof item === 'object' && item !== null
        ? entryToken(item, env)
        : ({} as { token?: string; problem?: string });
    if (problem) problems.push(`${name}: ${problem}`);
    if (!parsed.success) return;
    const entry = parsed.data;
    if (keys.has(entry.agentKey)) problems.push(`${name}: agentKey: duplicate "${entry.agentKey}"`);
    keys.add(entry.agentKey);
    agents.push({ ...entry, token: token ?? '' });
  });
  return { agents, problems };
}
