/**
 * `amsflow codec-server`: serves Temporal's remote codec protocol with the keys of
 * `AMSFLOW_ENCRYPTION_KEYS`, so that the Temporal UI shows decrypted payloads to an operator who
 * holds them (see codec/codec-server.ts). Beyond loopback it needs a credential: a bearer token
 * (`--token-file` or `AMSFLOW_CODEC_TOKEN`) or an OIDC issuer (`--oidc-issuer`, `--oidc-audience`).
 * Runs until SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import {
  CodecServerConfigError,
  codecTokenProblem,
  DEFAULT_CODEC_SERVER_PORT,
  DEFAULT_UI_ORIGINS,
  EncryptionCodec,
  EncryptionKeysError,
  ENCRYPTION_KEYS_VARIABLE,
  encryptionKeysFromEnv,
  encryptionStrictFromEnv,
  oidcUrlProblem,
  startCodecServer,
  type CodecAuthOptions,
  type CodecServerOptions,
} from '../codec';

/** The variable holding the codec server's bearer token (`--token-file` instead keeps it off the environment). */
export const CODEC_TOKEN_VARIABLE = 'AMSFLOW_CODEC_TOKEN';

/** Why `--port` is not a port, or undefined. */
export function portProblem(port: string | undefined): string | undefined {
  if (port === undefined || (/^\d{1,5}$/.test(port) && Number(port) <= 65535)) return undefined;
  return 'codec-server: --port must be a port (0 to 65535)';
}

/**
 * Why `origin` is not what a browser sends in its Origin header (`scheme://host[:port]`, no path,
 * no trailing slash), or undefined: such an origin would never match, and the UI would fail
 * silently.
 */
export function originProblem(origin: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (url && /^https?:$/.test(url.protocol) && url.origin === origin) return undefined;
  const hint = url && /^https?:$/.test(url.protocol) ? ` (did you mean ${url.origin}?)` : '';
  return `codec-server: --origin ${JSON.stringify(origin)} is not an origin such as https://ui.example:8233${hint}`;
}

/** The command line's values (client/cli/codec-server-command.ts). */
export interface CodecServerValues {
  port?: string;
  host?: string;
  origin?: string[];
  'allowed-host'?: string[];
  namespace?: string[];
  'token-file'?: string;
  'oidc-issuer'?: string;
  'oidc-audience'?: string;
  'oidc-jwks-uri'?: string;
  'oidc-permissions-claim'?: string;
  'allow-encode'?: boolean;
  strict?: boolean;
}

/** The bearer token of `--token-file` or `AMSFLOW_CODEC_TOKEN`, or why it cannot be used. */
function tokenOf(values: CodecServerValues, env: NodeJS.ProcessEnv): { token?: string; problem?: string } {
  const file = values['token-file'];
  // Empty is unset: a compose file passes every variable, set or not.
  const fromEnv = env[CODEC_TOKEN_VARIABLE] || undefined;
  if (file !== undefined && fromEnv !== undefined)
    return { problem: `give the token once: --token-file or ${CODEC_TOKEN_VARIABLE}, not both` };
  let token = fromEnv;
  let where = CODEC_TOKEN_VARIABLE;
  if (file !== undefined) {
    where = `--token-file ${file}`;
    try {
      token = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      return {
        problem: `cannot read --token-file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
  }
  if (token === undefined) return {};
  const problem = codecTokenProblem(token);
  return problem ? { problem: `the token of ${where} ${problem}` } : { token };
}

/** The credential options, or why they cannot be used. */
function authOf(
  values: CodecServerValues,
  env: NodeJS.ProcessEnv,
): { auth: CodecAuthOptions; problem?: string } {
  const { token, problem } = tokenOf(values, env);
  if (problem) return { auth: {}, problem };
  const issuer = values['oidc-issuer'] || undefined;
  const audience = values['oidc-audience'] || undefined;
  const oidcOnly = ['oidc-audience', 'oidc-jwks-uri', 'oidc-permissions-claim'] as const;
  if (issuer === undefined) {
    const stray = oidcOnly.find((name) => Boolean(values[name]));
    return stray ? { auth: {}, problem: `--${stray} needs --oidc-issuer` } : { auth: { token } };
  }
  if (audience === undefined)
    return { auth: {}, problem: '--oidc-issuer needs --oidc-audience (the UI client id)' };
  const urlProblem =
    oidcUrlProblem(issuer, '--oidc-issuer') ??
    (values['oidc-jwks-uri'] ? oidcUrlProblem(values['oidc-jwks-uri'], '--oidc-jwks-uri') : undefined);
  if (urlProblem) return { auth: {}, problem: urlProblem };
  const oidc = {
    issuer,
    audience,
    jwksUri: values['oidc-jwks-uri'],
    permissionsClaim: values['oidc-permissions-claim'],
  };
  return { auth: { token, oidc } };
}

function describe(options: CodecServerOptions, url: string, keys: string): string[] {
  const { auth } = options;
  const who = [
    auth?.token ? 'a bearer token' : undefined,
    auth?.oidc ? `OIDC tokens of ${auth.oidc.issuer} for ${auth.oidc.audience}` : undefined,
  ].filter(Boolean);
  return [
    `amsflow: codec server at ${url} (${keys})`,
    `  for the UI: temporal server start-dev --ui-codec-endpoint ${url}`,
    `  or TEMPORAL_CODEC_ENDPOINT=${url}; browsers allowed from ${(options.origins ?? DEFAULT_UI_ORIGINS).join(', ')}`,
    `  callers need ${who.length ? who.join(' or ') : 'no credential (loopback only)'}; ` +
      `encode ${options.allowEncode ? 'on' : 'off'}; namespaces ${options.namespaces?.length ? options.namespaces.join(', ') : 'any'}`,
  ];
}

/**
 * Starts the codec server and serves until `stop` resolves (default: SIGINT or SIGTERM); resolves
 * to the exit code: 2 without keys or with a setup that would serve anyone, 1 when it cannot listen.
 */
export async function runCodecServer(
  values: CodecServerValues,
  env: NodeJS.ProcessEnv,
  stop?: Promise<unknown>,
): Promise<number> {
  let keys;
  let strict;
  try {
    keys = encryptionKeysFromEnv(env);
    strict = values.strict === true || encryptionStrictFromEnv(env);
  } catch (err) {
    if (!(err instanceof EncryptionKeysError)) throw err;
    console.error(err.message);
    return 2;
  }
  if (!keys) {
    console.error(`codec-server needs ${ENCRYPTION_KEYS_VARIABLE} (the keys the workers use)`);
    return 2;
  }
  const { auth, problem } = authOf(values, env);
  if (problem) {
    console.error(`codec-server: ${problem}`);
    return 2;
  }
  const port = values.port === undefined ? DEFAULT_CODEC_SERVER_PORT : Number(values.port);
  const options: CodecServerOptions = {
    codec: new EncryptionCodec(keys, { strict }),
    port,
    host: values.host,
    origins: values.origin,
    allowedHosts: values['allowed-host'],
    namespaces: values.namespace,
    auth,
    allowEncode: values['allow-encode'] === true,
  };
  let server;
  try {
    server = await startCodecServer(options);
  } catch (err) {
    if (err instanceof CodecServerConfigError) {
      console.error(`codec-server: ${err.message}`);
      return 2;
    }
    const code = (err as NodeJS.ErrnoException).code;
    console.error(
      code === 'EADDRINUSE'
        ? `codec-server: port ${port} is already in use (choose another with --port)`
        : `codec-server: cannot listen (${(err as Error).message})`,
    );
    return 1;
  }
  const keyText = `keys ${keys.map((k) => k.id).join(', ')}; current ${keys[0].id}${strict ? '; strict' : ''}`;
  for (const line of describe(options, server.url, keyText)) console.log(line);
  await (stop ?? signalled());
  await server.close();
  return 0;
}

/** Resolves at the first SIGINT or SIGTERM. */
function signalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
