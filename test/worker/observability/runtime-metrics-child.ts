/**
 * A worker process's Temporal Runtime with its metrics exporter, for runtime-metrics.test.ts:
 * prints `{"url": ...}` (where `/metrics` reads the runtime's own metrics) once the exporter
 * listens, and lives until its stdin closes.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { installRuntime, runtimeMetricsUrl } from '../../../worker/observability/runtime';

async function main(): Promise<void> {
  await installRuntime({ logger: new DefaultLogger('ERROR'), metrics: true });
  Runtime.instance();
  // A connection, so that the runtime has metrics of its own to show.
  const address = process.env.AMSFLOW_TEST_TEMPORAL_ADDRESS;
  const connection = address ? await NativeConnection.connect({ address }) : undefined;
  process.stdout.write(`${JSON.stringify({ url: runtimeMetricsUrl() })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void connection?.close().finally(() => process.exit(0));
    if (!connection) process.exit(0);
  });
}

void main();
