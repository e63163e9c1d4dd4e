#!/usr/bin/env node
/**
 * The `amsflow` command line (`npm run amsflow -- <command>`; `amsflow --help` lists the commands,
 * `amsflow <command> --help` describes one). The commands are a table (client/cli/commands.ts);
 * this file parses a command line against it, runs the command and turns what it throws into
 * a message and an exit code.
 *
 * Connects to Temporal as Temporal's own tools do (a profile of temporal.toml, picked by
 * `--profile` or TEMPORAL_PROFILE, and the TEMPORAL_* variables: address, namespace, TLS, mTLS,
 * API key; default 127.0.0.1:7233, namespace "default"), within AMSFLOW_CONNECT_TIMEOUT (default
 * 2s), task queue AMSFLOW_TASK_QUEUE (default amsflow); the agent
 * key defaults to AMSFLOW_AGENT or "default". With AMSFLOW_ENCRYPTION_KEYS set, payloads are
 * encrypted and decrypted with those keys (as the worker does).
 * Exit codes: 0 done (for `approval request --wait`: approved), 1 what was asked did not happen
 * (no such agent, conversation or approval, Temporal unreachable...), 2 bad usage (nothing was
 * contacted), 3 `approval request --wait` reached a decision other than approved.
 */
import { Client, type Connection } from '@temporalio/client';
import { dataConverterFromEnv, EncryptionKeysError } from '../codec';
import { COMMANDS } from './cli/commands';
import { resolve } from './cli/parse';
import { CommandFailure, UsageError, type CommandContext, type Entry } from './cli/spec';
import {
  connectTemporal,
  DEFAULT_NAMESPACE,
  queryTimeoutMs,
  temporalTarget,
  TemporalUnreachableError,
  type TemporalTarget,
} from './cli/temporal';
import { connectFailureLine, credentialsRefused } from '../tools/temporal-profile';
import { ASK_AGAIN_INTERCEPTORS } from '../protocol/messages';

export { DEFAULT_APPROVAL_TIMEOUT } from './cli/approval-commands';

/** Runs the command line `argv` (without node and the script) against `table`; resolves to the exit code. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  table: readonly Entry[] = COMMANDS,
): Promise<number> {
  const { profile, rest } = profileFlag(argv);
  if (profile instanceof UsageError) {
    console.error(profile.message);
    return 2;
  }
  const resolution = resolve(table, rest, env);
  if (resolution.kind === 'print') {
    (resolution.toStderr ? console.error : console.log)(resolution.text);
    return resolution.code;
  }
  let connection: Connection | undefined;
  let client: Client | undefined;
  const ctx: CommandContext = {
    ...resolution.input,
    async temporal() {
      if (client) return client;
      // Checked before connecting: bad keys, a malformed address or a bad wait contact nothing (exit 2).
      const dataConverter = dataConverterFromEnv(env);
      queryTimeoutMs(env);
      const target = temporalTarget(env, profile);
      connection = await connectTemporal(target, env);
      const namespace = target.profile?.namespace ?? env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE;
      await checkNamespace(connection, namespace, target);
      client = new Client({ connection, namespace, dataConverter, interceptors: ASK_AGAIN_INTERCEPTORS });
      return client;
    },
  };
  try {
    return await resolution.command.run(ctx);
  } catch (err) {
    return reported(err, resolution.path);
  } finally {
    await connection?.close();
  }
}

/** gRPC's status code for something that does not exist. */
const GRPC_NOT_FOUND = 5;

/**
 * Fails the command when the namespace does not exist (otherwise every call fails with a bare
 * "Namespace not found"), or when the server refuses the caller's credentials (an API key or
 * token refused, or not for this namespace): one line naming the settings to check.
 */
async function checkNamespace(
  connection: Connection,
  namespace: string,
  target: TemporalTarget,
): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === GRPC_NOT_FOUND)
      throw new CommandFailure(
        `namespace "${namespace}" does not exist on the Temporal at ${target.address} (TEMPORAL_NAMESPACE${namespace === DEFAULT_NAMESPACE ? ' is not set' : ''})`,
      );
    if (credentialsRefused(err) && target.profile)
      throw new CommandFailure(connectFailureLine(target.profile, err));
    // Any other answer: a server that may not describe namespaces to this caller is let through.
  }
}

/**
 * `--profile <name>` / `--profile=<name>` anywhere on the command line (Temporal's CLI has the
 * same), taken out of `argv`; a `--profile` with no name is a usage error.
 */
export function profileFlag(argv: string[]): { profile?: string | UsageError; rest: string[] } {
  const rest: string[] = [];
  let profile: string | UsageError | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--profile' || arg.startsWith('--profile=')) {
      const value = arg === '--profile' ? argv[++i] : arg.slice('--profile='.length);
      profile =
        value === undefined || value === '' || value.startsWith('-')
          ? new UsageError('--profile needs a profile name (of temporal.toml)')
          : value;
      continue;
    }
    rest.push(arg);
  }
  return { ...(profile !== undefined ? { profile } : {}), rest };
}

/** The message and exit code for what a command threw. */
function reported(err: unknown, path: string): number {
  if (err instanceof UsageError || err instanceof EncryptionKeysError) {
    console.error(err.message);
    return 2;
  }
  if (err instanceof CommandFailure) {
    console.error(err.message);
    return err.exitCode;
  }
  if (err instanceof TemporalUnreachableError) {
    console.error(err.message);
    return 1;
  }
  console.error(`amsflow ${path}: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
