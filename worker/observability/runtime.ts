/**
 * Installs the process's Temporal Runtime (once, before any connection): amsflow's logger as the
 * runtime logger, the core's own logs forwarded to it, and the runtime's Prometheus exporter on
 * a private loopback port that `/metrics` reads and serves after amsflow's own metrics.
 */
import type { Logger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { freePort } from '../dev-server';
import { TaskFailureLogger } from './task-failures';

let runtimeMetrics: string | undefined;

/** The Temporal runtime's Prometheus endpoint in this process, when {@link installRuntime} set one up. */
export function runtimeMetricsUrl(): string | undefined {
  return runtimeMetrics;
}

/** Options of {@link installRuntime}. */
export interface RuntimeInstallOptions {
  logger: Logger;
  /** Export the runtime's metrics (off with `AMSFLOW_METRICS_PORT=off`). */
  metrics: boolean;
}

/**
 * Installs the Runtime; throws if one is installed already (it must come first, and once). Its
 * logger reports each workflow task failure once ({@link TaskFailureLogger}); returns it.
 */
export async function installRuntime(options: RuntimeInstallOptions): Promise<TaskFailureLogger> {
  const port = options.metrics ? await freePort() : undefined;
  const logger = new TaskFailureLogger(options.logger);
  Runtime.install({
    logger,
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      // Counters named as Prometheus wants them (`_total`), so that the whole endpoint passes
      // `promtool check metrics` beside amsflow's own.
      ...(port === undefined
        ? {}
        : { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true } } }),
    },
  });
  if (port !== undefined) runtimeMetrics = `http://127.0.0.1:${port}/metrics`;
  return logger;
}
