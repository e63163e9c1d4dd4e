/**
 * Where Temporal is and how to reach it, the way Temporal's SDKs, CLI and UI read it
 * (`@temporalio/envconfig`): a profile of `temporal.toml` (the file `TEMPORAL_CONFIG_FILE` names,
 * else `temporalio/temporal.toml` in the user's config directory; `TEMPORAL_PROFILE` or the CLI's
 * `--profile` picks the profile, else `default`), with the `TEMPORAL_*` variables over it:
 * `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY` (TLS on by itself, as Temporal
 * Cloud expects), `TEMPORAL_TLS` and `TEMPORAL_TLS_*` (a CA, a client certificate and key, as
 * paths or data; a server name), `TEMPORAL_GRPC_META_*`.
 *
 * Unlike Temporal's CLI, the file is read only when `TEMPORAL_PROFILE`, `--profile` or
 * `TEMPORAL_CONFIG_FILE` names it: a default profile there (perhaps Temporal Cloud's) never takes
 * `npm start` off its embedded server, nor adds its TLS and API key to a bare `TEMPORAL_ADDRESS`.
 *
 * A profile with no address is no configuration at all ({@link loadTemporalProfile} gives
 * undefined): the caller's default applies (the worker's embedded dev server, the CLI's
 * 127.0.0.1:7233). A setting that cannot be used (a certificate file that is not there, a key
 * without its certificate, a profile the file does not have, a file that does not parse) is a
 * {@link TemporalProfileError} naming the setting, before anything connects; a connection that
 * fails is explained by {@link connectFailureLine}, naming the settings to check.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  loadClientConfigProfile,
  type ClientConfigProfile,
  type ConfigDataSource,
} from '@temporalio/envconfig';
import type { ConnectionOptions } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';

type TLSConfig = Exclude<NonNullable<ConnectionOptions['tls']>, boolean>;

/** A Temporal to connect to, and how. */
export interface TemporalProfile {
  /** `host:port`. */
  address: string;
  /** Undefined: the profile names none (the caller's default). */
  namespace?: string;
  /** TLS: undefined or false for plaintext, true for TLS with the system's roots, or the settings. */
  tls?: TLSConfig | boolean;
  apiKey?: string;
  /** gRPC metadata sent with every call (`TEMPORAL_GRPC_META_*`, a profile's `grpc_meta`). */
  metadata?: Record<string, string>;
  /** Where it came from, for messages: the profile and file, or the variables. */
  origin: string;
  /** The names of the settings that turned TLS on or shaped it, for messages. */
  tlsSettings: string[];
  /** The temporal.toml it was read from (`TEMPORAL_CONFIG_FILE`), when one was named. */
  configFile?: string;
  /** Reads it again from the same variables and file (a key rotated in the file shows here). */
  reload(): TemporalProfile | undefined;
}

/** A connection setting that cannot be used; the message names it and what to check. */
export class TemporalProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemporalProfileError';
  }
}

/** The variables of Temporal's environment configuration that shape TLS. */
const TLS_VARIABLES = [
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_SERVER_NAME',
];

/**
 * The profile `env` configures (with `profile` over `TEMPORAL_PROFILE`), or undefined when it
 * configures no address. Throws {@link TemporalProfileError}.
 */
export function loadTemporalProfile(
  env: NodeJS.ProcessEnv,
  { profile }: { profile?: string } = {},
): TemporalProfile | undefined {
  const vars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const profileName = profile ?? vars.TEMPORAL_PROFILE;
  if (vars.TEMPORAL_CONFIG_FILE !== undefined && !existsSync(vars.TEMPORAL_CONFIG_FILE))
    throw new TemporalProfileError(`TEMPORAL_CONFIG_FILE: no file at ${vars.TEMPORAL_CONFIG_FILE}`);
  // The user's temporal.toml only when named: a default profile there (the Temporal CLI's, perhaps
  // for Cloud) must not take npm start off its embedded server, nor add its TLS and API key to a
  // bare TEMPORAL_ADDRESS.
  const useFile = profileName !== undefined || vars.TEMPORAL_CONFIG_FILE !== undefined;
  let loaded: ClientConfigProfile;
  try {
    loaded = loadClientConfigProfile({
      profile: profileName,
      overrideEnvVars: vars,
      disableFile: !useFile,
    });
  } catch (err) {
    throw new TemporalProfileError(profileProblem(err, profileName, vars));
  }
  const tlsSettings = TLS_VARIABLES.filter((name) => vars[name] !== undefined);
  if (loaded.address === undefined) {
    const stray = [...(loaded.apiKey !== undefined ? ['TEMPORAL_API_KEY'] : []), ...tlsSettings];
    if (stray.length > 0 || profileName !== undefined)
      throw new TemporalProfileError(
        `${stray.length > 0 ? stray.join(', ') : `profile "${profileName}"`} given but no address: set TEMPORAL_ADDRESS (host:port) or an address in the profile`,
      );
    return undefined;
  }
  const origin =
    profileName !== undefined
      ? `profile "${profileName}"${vars.TEMPORAL_ADDRESS !== undefined ? ' (address from TEMPORAL_ADDRESS)' : ''}`
      : vars.TEMPORAL_ADDRESS !== undefined
        ? 'TEMPORAL_ADDRESS'
        : 'the default profile of temporal.toml';
  const tls = tlsOf(loaded, vars);
  if (loaded.tls && tlsSettings.length === 0) tlsSettings.push(`the tls settings of ${origin}`);
  if (loaded.apiKey !== undefined && loaded.tls === undefined)
    tlsSettings.push('TEMPORAL_API_KEY (TLS on by itself)');
  return {
    address: loaded.address,
    ...(loaded.namespace !== undefined ? { namespace: loaded.namespace } : {}),
    ...(tls !== undefined ? { tls } : {}),
    ...(loaded.apiKey !== undefined ? { apiKey: loaded.apiKey } : {}),
    ...(loaded.grpcMeta && Object.keys(loaded.grpcMeta).length > 0 ? { metadata: loaded.grpcMeta } : {}),
    origin,
    tlsSettings,
    ...(useFile && vars.TEMPORAL_CONFIG_FILE !== undefined ? { configFile: vars.TEMPORAL_CONFIG_FILE } : {}),
    reload: () => loadTemporalProfile(env, { profile }),
  };
}

/** The TLS settings of `profile`, files read; throws {@link TemporalProfileError} naming a bad one. */
function tlsOf(profile: ClientConfigProfile, vars: Record<string, string>): TLSConfig | boolean | undefined {
  const tls = profile.tls;
  if (tls === undefined) return profile.apiKey !== undefined ? true : undefined;
  if (tls.disabled === true) return false;
  const read = (source: ConfigDataSource | undefined, what: string, variable: string) => {
    if (source === undefined) return undefined;
    if ('data' in source)
      return typeof source.data === 'string' ? Buffer.from(source.data) : Buffer.from(source.data);
    const name = vars[`${variable}_PATH`] !== undefined ? `${variable}_PATH` : `the profile's ${what} path`;
    if (!existsSync(source.path))
      throw new TemporalProfileError(`${name}: no file at ${source.path} (the ${what})`);
    return readFileSync(source.path);
  };
  const ca = read(tls.serverCACert, 'server CA certificate', 'TEMPORAL_TLS_SERVER_CA_CERT');
  const crt = read(tls.clientCert, 'client certificate', 'TEMPORAL_TLS_CLIENT_CERT');
  const key = read(tls.clientKey, 'client key', 'TEMPORAL_TLS_CLIENT_KEY');
  if ((crt === undefined) !== (key === undefined))
    throw new TemporalProfileError(
      crt === undefined
        ? 'TEMPORAL_TLS_CLIENT_KEY_* given without TEMPORAL_TLS_CLIENT_CERT_*: mTLS needs both the client certificate and its key'
        : 'TEMPORAL_TLS_CLIENT_CERT_* given without TEMPORAL_TLS_CLIENT_KEY_*: mTLS needs both the client certificate and its key',
    );
  return {
    ...(tls.serverName !== undefined ? { serverNameOverride: tls.serverName } : {}),
    ...(ca !== undefined ? { serverRootCACertificate: ca } : {}),
    ...(crt !== undefined && key !== undefined ? { clientCertPair: { crt, key } } : {}),
  };
}

/** What went wrong loading the profile, in one line naming the setting. */
function profileProblem(err: unknown, profileName: string | undefined, vars: Record<string, string>): string {
  const message = err instanceof Error ? err.message : String(err);
  const file = vars.TEMPORAL_CONFIG_FILE ?? 'temporal.toml in the user config directory';
  if (/Profile '.*' not found/.test(message))
    return `TEMPORAL_PROFILE / --profile: no profile "${profileName}" in ${file}`;
  return `${file} cannot be read: ${message.split('\n')[0]}`;
}

/**
 * The connection options of `profile`, for both connection kinds: `Connection.connect` /
 * `Connection.lazy` (`@temporalio/client`) and `NativeConnection.connect` (`@temporalio/worker`).
 */
export function connectionOptions(
  profile: TemporalProfile,
): Pick<ConnectionOptions, 'address' | 'tls' | 'apiKey' | 'metadata'> & NativeConnectionOptions {
  return {
    address: profile.address,
    ...(profile.tls !== undefined ? { tls: profile.tls } : {}),
    ...(profile.apiKey !== undefined ? { apiKey: profile.apiKey } : {}),
    ...(profile.metadata ? { metadata: profile.metadata } : {}),
  };
}

/**
 * Why a TLS connection to `profile` fails, found with a TLS handshake of Node's own (the SDK's
 * client says only "Failed to connect before the deadline"), in words naming the settings to
 * check; undefined when the handshake and the server's first HTTP/2 frame come through (the
 * problem is elsewhere) or TLS is off.
 */
export function diagnoseTls(profile: TemporalProfile, timeoutMs: number): Promise<string | undefined> {
  const tls = profile.tls;
  if (tls === undefined || tls === false) return Promise.resolve(undefined);
  const settings = tls === true ? {} : tls;
  const colon = profile.address.lastIndexOf(':');
  const host = profile.address.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(profile.address.slice(colon + 1));
  const servername = settings.serverNameOverride ?? (isIP(host) ? undefined : host);
  return new Promise((resolve) => {
    let secured = false;
    const socket = tlsConnect({
      host,
      port,
      ...(servername ? { servername } : {}),
      ALPNProtocols: ['h2'],
      ...(settings.serverRootCACertificate ? { ca: Buffer.from(settings.serverRootCACertificate) } : {}),
      ...(settings.clientCertPair
        ? { cert: Buffer.from(settings.clientCertPair.crt), key: Buffer.from(settings.clientCertPair.key) }
        : {}),
    });
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(
      () => done(secured ? undefined : `no TLS handshake within ${timeoutMs} ms: check TEMPORAL_ADDRESS`),
      timeoutMs,
    );
    socket.once('secureConnect', () => {
      secured = true;
      // The HTTP/2 preface and an empty SETTINGS frame: a server that took the handshake answers.
      socket.write(
        Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00', 'latin1'),
      );
    });
    socket.once('data', () => done(undefined));
    socket.once('close', () =>
      done(
        secured
          ? settings.clientCertPair
            ? 'the server closed the connection after the TLS handshake: it does not accept this client certificate; check TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (signed by the CA the server trusts)'
            : 'the server closed the connection after the TLS handshake: it may require a client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH)'
          : undefined,
      ),
    );
    socket.once('error', (err: NodeJS.ErrnoException) => done(tlsProblem(err, profile)));
  });
}

/** A TLS error of Node's, in words naming the settings to check. */
function tlsProblem(err: NodeJS.ErrnoException, profile: TemporalProfile): string {
  const code = err.code ?? '';
  const tlsNames = profile.tlsSettings.join(', ') || 'TEMPORAL_TLS';
  if (code === 'ECONNREFUSED') return 'connection refused (nothing listens there): check TEMPORAL_ADDRESS';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found: check TEMPORAL_ADDRESS';
  if (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    /wrong version number|packet length too long/.test(err.message)
  )
    return `TLS is on (${tlsNames}) but the server does not speak TLS there: a plaintext endpoint? Unset the TLS settings, or check TEMPORAL_ADDRESS`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the server's certificate is for another name (${err.message.replace(/^.*altnames: /, '')}): set TEMPORAL_TLS_SERVER_NAME to a name in it, or connect by that name`;
  if (code === 'CERT_HAS_EXPIRED') return "the server's certificate has expired";
  if (code === 'CERT_NOT_YET_VALID') return "the server's certificate is not valid yet (check the clocks)";
  if (
    /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED)$/.test(
      code,
    )
  )
    return `the server's certificate is not trusted: set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed it${profile.tls !== true && typeof profile.tls === 'object' && profile.tls.serverRootCACertificate ? ' (the one given did not)' : ''}`;
  if (/CERTIFICATE_REQUIRED|certificate required/i.test(code + err.message))
    return 'the server requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH';
  if (/UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|unknown ca|bad certificate/i.test(code + err.message))
    return 'the server does not accept this client certificate: check TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (signed by the CA the server trusts)';
  if (/KEY_VALUES_MISMATCH|key values mismatch|PEM|no start line|bad decrypt/i.test(code + err.message))
    return 'the client certificate and key do not go together or do not parse: check TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (PEM)';
  return `TLS failed (${code || err.message.split('\n')[0]}): check ${tlsNames}`;
}

/**
 * Whether `err` (a gRPC call's) says the server refused the caller's credentials: unauthenticated
 * (no or a bad API key / token) or permission denied (a token without this namespace).
 */
export function credentialsRefused(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 16 || code === 7;
}

/**
 * One line for a connection to `profile` that failed with `err`: what happened and the settings to
 * check; `diagnosis` (from {@link diagnoseTls}) when there is one. Never the API key.
 */
export function connectFailureLine(profile: TemporalProfile, err: unknown, diagnosis?: string): string {
  const raw = err instanceof Error ? err.message : String(err);
  const where = `Temporal at ${profile.address} (${profile.origin})`;
  let why = diagnosis;
  if (why === undefined) {
    if (
      /UNAUTHENTICATED|Request unauthenticated|invalid token|api key/i.test(raw) ||
      /\b16\b.*UNAUTH/.test(raw)
    )
      why =
        profile.apiKey !== undefined
          ? 'the server refused the API key: check TEMPORAL_API_KEY (expired, revoked, or for another account)'
          : 'the server requires an API key or token: set TEMPORAL_API_KEY';
    else if (/PERMISSION_DENIED|Request unauthorized|permission denied/i.test(raw))
      why =
        profile.apiKey !== undefined
          ? `the server refused this client for namespace ${profile.namespace ?? 'default'}: check TEMPORAL_API_KEY's permissions and TEMPORAL_NAMESPACE`
          : `the server refused this client for namespace ${profile.namespace ?? 'default'}: it may require an API key or token (set TEMPORAL_API_KEY), or check TEMPORAL_NAMESPACE`;
    else if (
      /BrokenPipe|broken pipe|connection reset|ConnectionReset/i.test(raw) &&
      (profile.tls === undefined || profile.tls === false)
    )
      why =
        'the server closed the connection: it may expect TLS (set TEMPORAL_TLS=true, or TEMPORAL_TLS_* for mTLS, or TEMPORAL_API_KEY)';
    else if (/before the deadline|deadline exceeded|timed out/i.test(raw))
      why = `no answer from a Temporal frontend in time: check TEMPORAL_ADDRESS${profile.tls === undefined || profile.tls === false ? ', and whether the endpoint needs TLS (TEMPORAL_TLS=true)' : ''}`;
    else why = redact(raw.split('\n')[0].trim(), profile);
  }
  return `cannot connect to ${where}: ${why}`;
}

/** `text` without the profile's API key. */
function redact(text: string, profile: TemporalProfile): string {
  return profile.apiKey ? text.split(profile.apiKey).join('[API key]') : text;
}
