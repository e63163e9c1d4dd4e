/**
 * Jest global setup: provides the Temporal binaries (installing them if needed) and starts one
 * dev server for the integration suites, on free ports with SQLite in a temp dir (a start that
 * fails is tried again on fresh ports; the last failure shows the server's output and exit).
 * Test files find it through `AMSFLOW_TEST_TEMPORAL_ADDRESS`. Every node child of the run
 * preloads ts-node-cache.js (through `NODE_OPTIONS`): ts-node's output is transpiled once per run
 * and file, not once per process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveTemporalBinaries } from '../../tools/temporal-binaries';
import type { RunningDevServer } from '../../worker/dev-server';
import { startScratchDevServer } from '../../worker/dev-server-retry';
import { withChildCaches } from './child-caches-env';

declare global {
  var __amsflowDevServer: { server: RunningDevServer; dir: string } | undefined;
}

export default async function globalSetup(): Promise<void> {
  const binaries = await resolveTemporalBinaries();
  if (binaries.cli.kind !== 'path') throw new Error('The Temporal CLI is needed on disk for the dev server');
  process.env.TEMPORAL_CLI_PATH = binaries.cli.path;
  if (binaries.testServer.kind === 'path') process.env.TEMPORAL_TEST_SERVER_PATH = binaries.testServer.path;
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-test-'));
  const server = await startScratchDevServer({
    cliPath: binaries.cli.path,
    dbFile: join(dir, 'temporal.db'),
    uiPort: false,
    log: (line) => console.error(`jest global set-up: ${line}`),
  });
  process.env.AMSFLOW_TEST_TEMPORAL_ADDRESS = server.address;
  // Worker processes of the suites (several at once) take any free metrics port, not 9464.
  process.env.AMSFLOW_METRICS_PORT ??= '0';
  process.env.AMSFLOW_TS_NODE_CACHE_DIR = join(dir, 'ts-node');
  process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR = join(dir, 'bundles');
  process.env.AMSFLOW_TEST_PACK_DIR = join(dir, 'pack');
  process.env.NODE_OPTIONS = withChildCaches(process.env.NODE_OPTIONS);
  globalThis.__amsflowDevServer = { server, dir };
}
