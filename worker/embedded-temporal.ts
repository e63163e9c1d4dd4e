/**
 * The Temporal step of `runAmsflow`: the embedded dev server when no `TEMPORAL_ADDRESS` is given,
 * then the connections the workers and the client use.
 */
import { Client } from '@temporalio/client';
import { openConnection } from '../tools/temporal-connection';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { resolveTemporalBinaries } from '../tools/temporal-binaries';
import type { Cleanups } from './cleanups';
import { dataConverterFor } from '../codec';
import type { WorkerConfig } from './config';
import { startDevServer, type RunningDevServer } from './dev-server';
import type { Log } from './run-types';
import { ASK_AGAIN_INTERCEPTORS } from '../protocol/messages';
import { ApiKeyRotation } from './api-key-rotation';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';
import {
  connectionOptions,
  connectFailureLine,
  credentialsRefused,
  diagnoseTls,
} from '../tools/temporal-profile';

/** Starts the embedded dev server on `dbFile`; its stop goes to `cleanups`. */
export async function startEmbeddedTemporal(
  config: WorkerConfig,
  dbFile: string,
  log: Log,
  cleanups: Cleanups,
): Promise<RunningDevServer> {
  const { cli } = await resolveTemporalBinaries({ log });
  if (cli.kind !== 'path') throw new Error('The embedded Temporal server needs the Temporal CLI on disk');
  const devServer = await startDevServer({
    cliPath: cli.path,
    dbFile,
    port: config.devServerPort,
    uiPort: config.devServerUiPort === 'off' ? false : config.devServerUiPort,
    namespace: config.namespace,
  });
  cleanups.push(() => devServer.stop());
  const ui = devServer.uiUrl ? `UI ${devServer.uiUrl}` : 'no UI: AMSFLOW_DEV_SERVER_UI_PORT=off';
  log(`amsflow: embedded Temporal dev server at ${devServer.address} (${ui})`);
  return devServer;
}

/** The connections of a run: the workers' and the client's, with one data converter. */
export interface TemporalConnections {
  nativeConnection: NativeConnection;
  client: Client;
  /** Undefined without encryption keys: Temporal's default. */
  dataConverter?: DataConverter;
}

/** Temporal could not be reached with the settings given: one line naming them (worker/main.ts prints it). */
export class TemporalConnectError extends AmsflowError {
  readonly code = AmsflowErrorCodes.temporalConnect;
}

/**
 * Connects to `address` (the embedded server's) or, when configured, to `config.temporal` with
 * its TLS and API key; a connection that fails is a {@link TemporalConnectError} whose line says
 * why (a TLS handshake of Node's own finds what the SDK's error does not say) and which settings
 * to check, as does a key or token the server refuses for the namespace. With an API key, a new
 * one is taken without a restart (worker/api-key-rotation.ts). The connections' closes go to
 * `cleanups`.
 */
export async function connectTemporal(
  config: WorkerConfig,
  address: string,
  cleanups: Cleanups,
  log: Log,
): Promise<TemporalConnections> {
  const profile = config.temporal;
  let nativeConnection: NativeConnection;
  try {
    nativeConnection = await NativeConnection.connect(profile ? connectionOptions(profile) : { address });
  } catch (err) {
    if (!profile) throw err;
    const diagnosis = await diagnoseTls(profile, 3000);
    throw new TemporalConnectError(connectFailureLine(profile, err, diagnosis));
  }
  cleanups.push(() => nativeConnection.close());
  const connection = await openConnection(profile ? connectionOptions(profile) : { address });
  cleanups.push(() => connection.close());
  // The connection's own check asks nothing of the namespace: a token refused, or one without
  // this namespace, shows here, before the workers fail with a bare transport error.
  if (profile)
    await connection.workflowService.describeNamespace({ namespace: config.namespace }).catch((err) => {
      if (credentialsRefused(err)) throw new TemporalConnectError(connectFailureLine(profile, err));
    });
  // A key rotated in the profile's file, or announced by SIGHUP, reaches both connections.
  if (profile?.apiKey !== undefined) {
    const rotation = new ApiKeyRotation(profile, [nativeConnection, connection], log).start();
    cleanups.push(() => rotation.stop());
  }
  // Encryption at rest (AMSFLOW_ENCRYPTION_KEYS): the same data converter for the client and every worker.
  const dataConverter = dataConverterFor(config.encryptionKeys, { strict: config.encryptionStrict });
  const client = new Client({
    connection,
    namespace: config.namespace,
    dataConverter,
    interceptors: ASK_AGAIN_INTERCEPTORS,
  });
  return { nativeConnection, client, dataConverter };
}
