/**
 * Installs the process's Temporal Runtime (once, before any connection): amsflow's logger as the
 * runtime logger, the core's own logs forwarded to it, and the runtime's Prometheus exporter on
 * a private loopback address that `/metrics` reads and serves after amsflow's own metrics.
 *
 * The exporter is the core's own server: it answers any Host, so it cannot apply amsflow's check
 * (core/local-request.ts) the way `/metrics` does. It listens where a page on a rebound DNS name
 * cannot find it: a random address of 127.0.0.0/8 where the system has them (Linux), with a
 * random port (worker/private-loopback.ts).
 */
import type { Logger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { freePort } from '../dev-server';
import { privateLoopbackHost } from '../private-loopback';
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
  const host = options.metrics ? await privateLoopbackHost() : undefined;
  const port = host ? await freePort(host) : undefined;
  const logger = new TaskFailureLogger(options.logger);
  Runtime.install({
    logger,
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      // Counters named as Prometheus wants them (`_total`), so that the whole endpoint passes
      // `promtool check metrics` beside amsflow's own.
      ...(port === undefined
        ? {}
        : { metrics: { prometheus: { bindAddress: `${host}:${port}`, countersTotalSuffix: true } } }),
    },
  });
  if (port !== undefined) runtimeMetrics = `http://${host}:${port}/metrics`;
  return logger;
}
