/**
 * `amsflow codec-server`: serves Temporal's remote codec protocol with the keys of
 * `AMSFLOW_ENCRYPTION_KEYS`, so that the Temporal UI shows decrypted payloads to an operator who
 * holds them (see codec/codec-server.ts). Runs until SIGINT or SIGTERM.
 */
import {
  DEFAULT_CODEC_SERVER_PORT,
  DEFAULT_UI_ORIGINS,
  EncryptionCodec,
  ENCRYPTION_KEYS_VARIABLE,
  encryptionKeysFromEnv,
  startCodecServer,
} from '../codec';

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

/**
 * Starts the codec server and serves until `stop` resolves (default: SIGINT or SIGTERM); resolves
 * to the exit code: 2 without keys, 1 when it cannot listen.
 */
export async function runCodecServer(
  values: { port?: string; host?: string; origin?: string[] },
  env: NodeJS.ProcessEnv,
  stop?: Promise<unknown>,
): Promise<number> {
  const keys = encryptionKeysFromEnv(env);
  if (!keys) {
    console.error(`codec-server needs ${ENCRYPTION_KEYS_VARIABLE} (the keys the workers use)`);
    return 2;
  }
  const port = values.port === undefined ? DEFAULT_CODEC_SERVER_PORT : Number(values.port);
  let server;
  try {
    server = await startCodecServer({
      codec: new EncryptionCodec(keys),
      port,
      host: values.host,
      origins: values.origin,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    console.error(
      code === 'EADDRINUSE'
        ? `codec-server: port ${port} is already in use (choose another with --port)`
        : `codec-server: cannot listen (${(err as Error).message})`,
    );
    return 1;
  }
  const origins = values.origin?.length ? values.origin : DEFAULT_UI_ORIGINS;
  console.log(
    `amsflow: codec server at ${server.url} (keys ${keys.map((k) => k.id).join(', ')}; current ${keys[0].id})`,
  );
  console.log(`  for the UI: temporal server start-dev --ui-codec-endpoint ${server.url}`);
  console.log(`  or TEMPORAL_CODEC_ENDPOINT=${server.url}; browsers allowed from ${origins.join(', ')}`);
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
