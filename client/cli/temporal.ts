/**
 * How every command of the command line reaches Temporal: Temporal's own connection settings
 * (tools/temporal-profile.ts: a profile of temporal.toml, `--profile` or `TEMPORAL_PROFILE`, and
 * the `TEMPORAL_*` variables: address, namespace, TLS, mTLS, API key), 127.0.0.1:7233 when none
 * is given; a short deadline (`AMSFLOW_CONNECT_TIMEOUT`, default 2 s; the SDK's own is 10 s and
 * its error, "Failed to connect before the deadline", names no address), an early failure when
 * nothing listens there, a TLS handshake of our own to say what TLS problem it met, and one
 * message that names the address, where it came from and why.
 */
import { Socket } from 'node:net';
import { Connection } from '@temporalio/client';
import { lazyConnection } from '../../tools/temporal-connection';
import { DurationFormatError, formatDuration, parseDuration } from '../../core/durations';
import {
  connectionOptions,
  diagnoseTls,
  loadTemporalProfile,
  TemporalProfileError,
  type TemporalProfile,
} from '../../tools/temporal-profile';
import { UsageError } from './spec';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
/** How long a command waits for a workflow's answer when `AMSFLOW_QUERY_TIMEOUT` is not set. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** The namespace when `TEMPORAL_NAMESPACE` is not set. */
export const DEFAULT_NAMESPACE = 'default';

/** Where to connect and for how long. */
export interface TemporalTarget {
  /** `host:port` as the SDK takes it. */
  address: string;
  host: string;
  port: number;
  /** Whether `TEMPORAL_ADDRESS` or a profile gave it (otherwise the default). */
  fromEnv: boolean;
  timeoutMs: number;
  /** The connection settings given (TLS, API key, namespace), if any. */
  profile?: TemporalProfile;
}

/** Temporal could not be reached: the message names the address and `TEMPORAL_ADDRESS`. */
export class TemporalUnreachableError extends Error {
  constructor(
    readonly address: string,
    message: string,
  ) {
    super(message);
    this.name = 'TemporalUnreachableError';
  }
}

const HOST_PORT = /^(?:\[(?<v6>[0-9a-fA-F:.]+)\]|(?<host>[^\s:/[\]]+))(?::(?<port>\d{1,5}))?$/;

/**
 * The target from the environment (and `--profile`); throws {@link UsageError} for a malformed
 * address or timeout, or a connection setting that cannot be used (nothing is contacted).
 */
export function temporalTarget(env: NodeJS.ProcessEnv, profileName?: string): TemporalTarget {
  let profile: TemporalProfile | undefined;
  try {
    profile = loadTemporalProfile(env, { profile: profileName });
  } catch (err) {
    if (!(err instanceof TemporalProfileError)) throw err;
    throw new UsageError(err.message);
  }
  const address = profile?.address ?? DEFAULT_TEMPORAL_ADDRESS;
  const match = HOST_PORT.exec(address);
  const port = Number(match?.groups?.port ?? 7233);
  if (!match?.groups || port < 1 || port > 65535)
    throw new UsageError(
      `${profile && env.TEMPORAL_ADDRESS === undefined ? `the address of ${profile.origin}` : 'TEMPORAL_ADDRESS'} ${JSON.stringify(address)} is not host:port (e.g. 127.0.0.1:7233, no scheme)`,
    );
  const host = match.groups.v6 ?? match.groups.host;
  const timeoutMs = durationVariable(env, 'AMSFLOW_CONNECT_TIMEOUT', DEFAULT_CONNECT_TIMEOUT_MS);
  const full = match.groups.port === undefined ? `${address}:${port}` : address;
  return {
    address: full,
    host,
    port,
    fromEnv: profile !== undefined,
    timeoutMs,
    ...(profile ? { profile: { ...profile, address: full } } : {}),
  };
}

/** A duration variable of the command line (`15s`, `1500ms`...): `fallback` when unset. */
function durationVariable(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined) return fallback;
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    if (!(err instanceof DurationFormatError)) throw err;
    throw new UsageError(`${name}: ${err.message}`);
  }
  if (ms <= 0) throw new UsageError(`${name} must be longer than 0`);
  return ms;
}

/**
 * How long a command waits for a workflow's answer (`state`'s query, the listings' queries, a
 * cancel taking effect, a resume taken): `AMSFLOW_QUERY_TIMEOUT`, default 10 s.
 */
export function queryTimeoutMs(env: NodeJS.ProcessEnv): number {
  return durationVariable(env, 'AMSFLOW_QUERY_TIMEOUT', DEFAULT_QUERY_TIMEOUT_MS);
}

/**
 * The message for a target that could not be reached, for `reason`; `tls`: the reason is what a
 * TLS handshake met (it names the settings to check, so no advice to start a server follows).
 */
export function unreachableMessage(target: TemporalTarget, reason: string, tls = false): string {
  const where = target.profile
    ? `${target.address} (${target.profile.origin})`
    : `${target.address} (the default; TEMPORAL_ADDRESS is not set)`;
  if (tls) return `cannot reach Temporal at ${where}: ${reason}`;
  return (
    `cannot reach Temporal at ${where}: ${reason}. ` +
    'Is the server running (npm start runs one)? Set TEMPORAL_ADDRESS to its host:port.'
  );
}

/**
 * A connection to the target, or {@link TemporalUnreachableError}: at once when a plain TCP
 * connection is refused (or the host is not found), else when the timeout passes, saying what a
 * TLS handshake of our own met when TLS is on. Without a proxy variable only: through a proxy, a
 * direct connection says nothing about the real one.
 */
export async function connectTemporal(target: TemporalTarget, env: NodeJS.ProcessEnv): Promise<Connection> {
  const options = target.profile ? connectionOptions(target.profile) : { address: target.address };
  const connection = lazyConnection({ ...options, connectTimeout: target.timeoutMs });
  const proxied = PROXY_VARIABLES.some((name) => env[name] || env[name.toUpperCase()]);
  const refused: Promise<string> = proxied
    ? new Promise(() => undefined)
    : diagnose(target.host, target.port, target.timeoutMs).then((why) => why ?? new Promise(() => undefined));
  let reason: string;
  let tls: string | undefined;
  try {
    const early = await Promise.race([connection.ensureConnected().then(() => undefined), refused]);
    if (early === undefined) return connection;
    reason = early;
  } catch (err) {
    const message = (err as Error).message;
    tls = target.profile && !proxied ? await diagnoseTls(target.profile, target.timeoutMs) : undefined;
    reason = tls ?? `no answer from a Temporal frontend within ${formatDuration(target.timeoutMs)}`;
    if (tls === undefined && !/before the deadline/.test(message)) reason += ` (${message})`;
  }
  await connection.close().catch(() => undefined);
  throw new TemporalUnreachableError(target.address, unreachableMessage(target, reason, tls !== undefined));
}

const PROXY_VARIABLES = ['grpc_proxy', 'https_proxy', 'http_proxy'];

/**
 * Why a plain TCP connection to host:port fails (connection refused, host not found...), or
 * undefined when it opens or does not answer in time (then Temporal itself did not answer).
 */
export function diagnose(host: string, port: number, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (why: string | undefined) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(ms, () => done(undefined));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(SOCKET_ERRORS[err.code ?? ''] ?? err.message));
    socket.connect(port, host);
  });
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (name resolution failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};
