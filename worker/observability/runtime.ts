/**
 * Installs the process's Temporal Runtime (once, before any connection): amsflow's logger as the
 * runtime logger, the core's own logs forwarded to it, and, with metrics on, the SDK's metrics
 * buffer as where the runtime's metrics go: the runtime listens on no port of its own, and
 * `Observability` drains the buffer into amsflow's registry (runtime-metrics.ts), which `/metrics`
 * serves.
 */
import type { Logger } from '@temporalio/common';
import { MetricsBuffer, Runtime } from '@temporalio/worker';
import { TaskFailureLogger } from './task-failures';

/**
 * Updates the buffer holds between two drains (one a second, and one each scrape) before the
 * runtime drops them: a busy worker makes a few hundred a second.
 */
const BUFFER_SIZE = 100_000;

let buffer: MetricsBuffer | undefined;

/** The Temporal runtime's metrics buffer in this process, when {@link installRuntime} set one up. */
export function runtimeMetricsBuffer(): MetricsBuffer | undefined {
  return buffer;
}

/** Options of {@link installRuntime}. */
export interface RuntimeInstallOptions {
  logger: Logger;
  /**
   * Record the runtime's metrics (off with `AMSFLOW_METRICS_PORT=off`: then the runtime records
   * none, and there is no buffer to drain).
   */
  metrics: boolean;
}

/**
 * Installs the Runtime; throws if one is installed already (it must come first, and once). Its
 * logger reports each workflow task failure once ({@link TaskFailureLogger}); returns it.
 */
export function installRuntime(options: RuntimeInstallOptions): TaskFailureLogger {
  const logger = new TaskFailureLogger(options.logger);
  const metrics = options.metrics ? new MetricsBuffer({ maxBufferSize: BUFFER_SIZE }) : undefined;
  Runtime.install({
    logger,
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(metrics ? { metrics: { buffer: metrics } } : {}),
    },
  });
  buffer = metrics;
  return logger;
}
