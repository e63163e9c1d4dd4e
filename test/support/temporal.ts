/**
 * Helpers for suites that talk to Temporal: the shared dev server started by the global setup,
 * and the time-skipping test server.
 */
import { Client, Connection } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  cachedBundleCode,
  inputsProbe,
  storeBundleCode,
  withWebpackCache,
  type BundleInputs,
} from './bundle-cache';

export function devServerAddress(): string {
  const address = process.env.AMSFLOW_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error('AMSFLOW_TEST_TEMPORAL_ADDRESS is unset: run the suite through jest (global setup)');
  return address;
}

/** A client and a worker connection to the shared dev server. Close both in afterAll. */
export async function connectDevServer(): Promise<{
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}> {
  const address = devServerAddress();
  const connection = await openConnection({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection });
  return {
    client,
    connection,
    nativeConnection,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** The time-skipping test server, from the binary the global setup resolved. */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  return TestWorkflowEnvironment.createTimeSkipping(
    path ? { server: { executable: { type: 'existing-path', path } } } : undefined,
  );
}

/**
 * Bundles workflow code once for a suite (pass the result as `workflowBundle`). Within a jest run
 * a bundle of unchanged inputs is reused from the run's cache, and the bundles one process makes
 * share webpack's cache (bundle-cache.ts).
 */
export async function bundle(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  const dir = process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR;
  const key = { workflowsPath, temporal: WORKER_VERSION };
  const code = dir ? cachedBundleCode(dir, key) : undefined;
  if (code !== undefined) return { code, sourceMap: CACHED_SOURCE_MAP };
  let inputs: BundleInputs | undefined;
  const made = await bundleWorkflowCode({
    workflowsPath,
    logger: quietLogger,
    webpackConfigHook: (config) =>
      withWebpackCache({
        ...config,
        plugins: [...(config.plugins ?? []), inputsProbe((found) => (inputs = found)) as never],
      }),
  });
  if (dir && inputs) storeBundleCode(dir, key, made.code, inputs);
  return made;
}

const WORKER_VERSION = (
  JSON.parse(readFileSync(require.resolve('@temporalio/worker/package.json'), 'utf8')) as { version: string }
).version;
/** The bundler's own value of this field: the map is inline in the code. */
const CACHED_SOURCE_MAP = 'deprecated: this is no longer in use\n';

/** A bundler logger that prints only errors. */
export const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

/** A task queue name no other suite uses. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** Waits until `check` returns a truthy value, polling; fails with `what` after the deadline. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  { timeoutMs = 20_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${lastError instanceof Error ? `: ${lastError.message}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
