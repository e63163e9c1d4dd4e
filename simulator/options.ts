import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { ClockOptions } from './clock';
import { allowedHostProblem } from '../core/local-request';
import { DEFAULT_UNREAD_GRACE_MS } from './unread-grace';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One agent served by the simulator. */
export interface SimulatorAgentConfig {
  /** Agent id; its participant identifier is `agent:<id>`. */
  id: string;
  /** Bearer token of the agent. */
  token: string;
  /** `user:<id>` of the agent's creator, the only human it may talk to. */
  creator: string;
  /** Profile name shown in `contacts`. Default `'Creator'`. */
  creatorName?: string;
  /** The agent's own profile name: the web chat's header names the bot with it. Default: the id. */
  name?: string;
}

/** Per-agent, per-endpoint limits over a rolling window. Defaults are the spec's section 8. */
export interface SimulatorLimits {
  /** Length of the rolling window in simulated ms. Default 60000. */
  windowMs: number;
  /** POST /messages. Default 12. */
  messages: number;
  /** POST /statuses (mark read). Default 12. */
  statuses: number;
  /** POST /statuses with a typing indicator; its own counter. Default 12. */
  typing: number;
  /** GET /updates. Default 15. */
  updates: number;
  /** POST /media. Default 12. */
  mediaUpload: number;
  /** GET /media/<id>. Default 12. */
  mediaGet: number;
  /** DELETE /media/<id>. Default 12. */
  mediaDelete: number;
}

export interface SimulatorReceiptOptions {
  /** Simulated ms after 'sent' until 'delivered' is appended. Default 200. */
  deliveredAfterMs?: number;
  /** Simulated ms after 'sent' until 'read' is appended; null = only when the human reads it. Default null. */
  readAfterMs?: number | null;
}

export interface SimulatorLongPollOptions {
  /** Wait when `timeout` is absent, in seconds. Default 15. */
  defaultSeconds?: number;
  /** Largest accepted `timeout`, in seconds; larger values get 400. Default 25. */
  maxSeconds?: number;
}

export interface SimulatorOptions {
  /** Interface to listen on. Default '127.0.0.1'. */
  host?: string;
  /**
   * Host names the web chat and the control API are reached by besides the address listened on
   * (`localhost` on loopback, any IP address on every interface); `.example` for subdomains.
   * Default none.
   */
  allowedHosts?: string[];
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * Agents served. Default one: {@link DEFAULT_AGENT} (`{ id: 'demo', creator: 'user:1001',
   * creatorName: 'Ada' }`) with a new random token each start ({@link newAgentToken}).
   */
  agents?: SimulatorAgentConfig[];
  /** Limits; unspecified members keep the spec's values. */
  limits?: Partial<SimulatorLimits>;
  /** Send `Retry-After` (whole real seconds, rounded up, at least 1) on 429. Default true. */
  retryAfter?: boolean;
  /** Receipt timing. */
  receipts?: SimulatorReceiptOptions;
  /**
   * Simulated ms an inbound message may stay unread after it was delivered (first returned in a
   * 200 page of GET /updates) before it counts as a protocol violation (`unreadPastGrace` in the
   * transcript and the totals). Default 10000.
   */
  unreadGraceMs?: number;
  /** Simulated clock: speed factor and real-time source. */
  clock?: ClockOptions;
  /** Long-poll timeouts. */
  longPoll?: SimulatorLongPollOptions;
  /** Update buffer retention in simulated ms. Default 30 days. */
  retentionMs?: number;
  /** Media lifetime after upload or receipt, in simulated ms. Default 30 days. */
  mediaTtlMs?: number;
  /** Largest JSON body accepted; larger gives 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest media upload accepted; larger gives 413. Default 100 MB. */
  maxMediaBytes?: number;
  /** Directory of the web chat's static files. Default `simulator/web` next to this module. */
  webDir?: string;
  /**
   * Keep the conversation in this JSON file (media bytes in a folder beside it) and resume from
   * it at start (state-file.ts). Default: none, the state lives in memory only.
   */
  stateFile?: string;
  /** With `stateFile`: a change is written within this many real ms. Default 200. */
  stateWriteDelayMs?: number;
}

export interface ResolvedOptions {
  host: string;
  allowedHosts: string[];
  port: number;
  agents: Required<SimulatorAgentConfig>[];
  limits: SimulatorLimits;
  retryAfter: boolean;
  receipts: { deliveredAfterMs: number; readAfterMs: number | null };
  unreadGraceMs: number;
  clock: ClockOptions;
  longPoll: { defaultSeconds: number; maxSeconds: number };
  retentionMs: number;
  mediaTtlMs: number;
  maxBodyBytes: number;
  maxMediaBytes: number;
  webDir: string;
  stateFile?: string;
  stateWriteDelayMs: number;
}

/**
 * A new agent token: `sim-` and 24 random hex digits. The default agent's token is a new one each
 * start, not a fixed one: a simulator listening beyond loopback (`--host 0.0.0.0`) or left running
 * would otherwise take any caller that knows the default as its agent.
 */
export function newAgentToken(): string {
  return `sim-${randomBytes(12).toString('hex')}`;
}

/** The agent served when none is given; its token is {@link newAgentToken}'s, new each start. */
export const DEFAULT_AGENT: Readonly<Omit<Required<SimulatorAgentConfig>, 'token'>> = {
  id: 'demo',
  creator: 'user:1001',
  creatorName: 'Ada',
  name: 'demo',
};

export const DEFAULT_LIMITS: SimulatorLimits = {
  windowMs: 60_000,
  messages: 12,
  statuses: 12,
  typing: 12,
  updates: 15,
  mediaUpload: 12,
  mediaGet: 12,
  mediaDelete: 12,
};

const USER_RE = /^user:\S+$/;

function positive(name: string, value: number, allowZero = false): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new RangeError(
      `simulator option ${name} must be a ${allowZero ? 'non-negative' : 'positive'} number`,
    );
  }
  return value;
}

/**
 * `simulator/web` next to this module; from a build (`dist/simulator`), where the static files
 * are not copied, the source tree's `simulator/web`.
 */
function defaultWebDir(): string {
  const beside = path.join(__dirname, 'web');
  const source = path.resolve(__dirname, '..', '..', 'simulator', 'web');
  return existsSync(beside) || !existsSync(source) ? beside : source;
}

/** Fills defaults and checks options at the public edge, so a mistake fails at start, not mid-test. */
export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const agents = (options.agents ?? [{ ...DEFAULT_AGENT, token: newAgentToken() }]).map((a) => ({
    creatorName: 'Creator',
    name: a.id,
    ...a,
  }));
  if (agents.length === 0) throw new RangeError('simulator option agents must name at least one agent');
  const ids = new Set<string>();
  const tokens = new Set<string>();
  for (const agent of agents) {
    if (!agent.id || /\s|:/.test(agent.id))
      throw new RangeError(`agent id must be non-empty without spaces or ':'`);
    if (!agent.token) throw new RangeError(`agent ${agent.id} needs a token`);
    if (!USER_RE.test(agent.creator)) throw new RangeError(`agent ${agent.id}: creator must be 'user:<id>'`);
    if (ids.has(agent.id)) throw new RangeError(`duplicate agent id ${agent.id}`);
    if (tokens.has(agent.token))
      throw new RangeError(`agent ${agent.id}: token already used by another agent`);
    ids.add(agent.id);
    tokens.add(agent.token);
  }
  const limits: SimulatorLimits = { ...DEFAULT_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(limits) as [string, number][]) positive(`limits.${name}`, value);
  const deliveredAfterMs = positive(
    'receipts.deliveredAfterMs',
    options.receipts?.deliveredAfterMs ?? 200,
    true,
  );
  const readAfterMs = options.receipts?.readAfterMs ?? null;
  if (readAfterMs !== null) positive('receipts.readAfterMs', readAfterMs, true);
  const longPoll = {
    defaultSeconds: positive('longPoll.defaultSeconds', options.longPoll?.defaultSeconds ?? 15, true),
    maxSeconds: positive('longPoll.maxSeconds', options.longPoll?.maxSeconds ?? 25, true),
  };
  return {
    host: options.host ?? '127.0.0.1',
    allowedHosts: allowedHostsOf(options.allowedHosts),
    port: options.port ?? 0,
    agents,
    limits,
    retryAfter: options.retryAfter ?? true,
    receipts: { deliveredAfterMs, readAfterMs },
    unreadGraceMs: positive('unreadGraceMs', options.unreadGraceMs ?? DEFAULT_UNREAD_GRACE_MS, true),
    clock: options.clock ?? {},
    longPoll,
    retentionMs: positive('retentionMs', options.retentionMs ?? 30 * DAY_MS),
    mediaTtlMs: positive('mediaTtlMs', options.mediaTtlMs ?? 30 * DAY_MS),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes ?? 1024 * 1024),
    maxMediaBytes: positive('maxMediaBytes', options.maxMediaBytes ?? 100_000_000),
    webDir: options.webDir ?? defaultWebDir(),
    stateFile: options.stateFile === undefined ? undefined : path.resolve(options.stateFile),
    stateWriteDelayMs: positive('stateWriteDelayMs', options.stateWriteDelayMs ?? 200, true),
  };
}

/** The allowed host names, each checked: a bad one is an options error, not a silent refusal later. */
function allowedHostsOf(names: string[] | undefined): string[] {
  for (const name of names ?? []) {
    const problem = allowedHostProblem(name);
    if (problem) throw new TypeError(`allowedHosts: ${problem}`);
  }
  return [...(names ?? [])];
}
