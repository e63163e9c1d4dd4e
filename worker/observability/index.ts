/**
 * A worker process's observability, wired in a few lines from worker/run.ts and worker/main.ts:
 * the logger, amsflow's metrics (activity interceptor and workflow metric sink), readiness, and
 * the endpoint serving `/metrics`, `/healthz` and `/readyz`. See README.md beside this file.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import type { ObservabilityConfig } from './observability-config';
import { activityMetricsInterceptor } from './activity-metrics';
import { AgentHealthMonitor } from './agent-health';
import { AmsflowMetrics } from './amsflow-metrics';
import { AmsflowLogger, type LineSink } from './logger';
import { modelMetricsInterceptor } from './model-metrics';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { Readiness } from './readiness';
import { registerSecret } from '../../core/redact';
import { runtimeMetricsBuffer } from './runtime';
import { RuntimeMetrics } from './runtime-metrics';
import { routeWorkflowMetrics } from './workflow-metrics-meter';
import type { Tracing } from './tracing';
import { tracesEndpoint } from './tracing-mode';

export { AmsflowLogger } from './logger';
export { installRuntime } from './runtime';
export { registerSecret } from '../../core/redact';
export { MetricsPortInUseError } from './metrics-server';
export { AgentHealthMonitor, judgeAgent, type AgentHealth } from './agent-health';

/** The observability of one process. */
export class Observability {
  readonly metrics = new AmsflowMetrics();
  readonly readiness = new Readiness();
  readonly logger: AmsflowLogger;
  private server?: MetricsServer;
  private runtimeMetrics?: RuntimeMetrics;
  private health?: AgentHealthMonitor;
  private tracing?: Tracing;

  constructor(
    readonly config: ObservabilityConfig,
    stream?: LineSink,
  ) {
    this.logger = new AmsflowLogger({
      format: config.logFormat,
      level: config.logLevel,
      bodies: config.logBodies,
      stream,
    });
  }

  /** `http://host:port` of the endpoint, once started (undefined when off). */
  get url(): string | undefined {
    return this.server?.url;
  }

  /** The OTLP endpoint traces go to, once started with tracing on (undefined when off). */
  get tracesUrl(): string | undefined {
    return this.tracing?.endpoint;
  }

  /**
   * Starts tracing when it is on (`config.tracing`: OpenTelemetry's SDK is loaded only then) and
   * the endpoint (unless `AMSFLOW_METRICS_PORT=off`), with the Temporal runtime's metrics drained
   * into the registry every second and before each scrape when installRuntime buffers them
   * (runtime-metrics.ts); `/readyz` says 503 until {@link running}.
   */
  async start(): Promise<this> {
    if (this.config.tracing === 'otlp' && !this.tracing) {
      const { startTracing } = await import('./tracing');
      this.tracing = startTracing({
        logger: this.logger,
        endpoint: this.config.tracesEndpoint ?? tracesEndpoint(),
      });
    }
    if (this.config.metricsPort === 'off' || this.server) return this;
    const buffer = runtimeMetricsBuffer();
    const runtime = buffer
      ? new RuntimeMetrics({
          buffer,
          registry: this.metrics.registry,
          onSkipped: (name) =>
            this.logger.warn(
              `amsflow: the Temporal runtime's metric ${name} clashes with another; not served`,
            ),
        })
      : undefined;
    this.server = await startMetricsServer({
      port: this.config.metricsPort,
      host: this.config.metricsHost,
      allowedHosts: this.config.metricsAllowedHosts,
      registry: this.metrics.registry,
      readiness: this.readiness,
      beforeScrape: runtime && (() => runtime.drain()),
    });
    this.runtimeMetrics = runtime?.start();
    return this;
  }

  /** The agents' tokens: redacted from every log line of this process. */
  secrets(tokens: (string | undefined)[]): void {
    for (const token of tokens) registerSecret(token);
  }

  /**
   * What every amsflow worker adds to its options: the activity interceptors, and with tracing on
   * its interceptors (outermost: their span covers the others) and the workflow spans' sink.
   * (Workflow-side metrics reach this registry through the Runtime's meter, routed here on the
   * first call.) Call after {@link start}.
   */
  workerOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
    routeWorkflowMetrics(this.metrics);
    return {
      ...(this.tracing ? { sinks: this.tracing.sinks } : {}),
      interceptors: {
        activity: [
          ...(this.tracing?.activity ?? []),
          activityMetricsInterceptor({
            metrics: this.metrics,
            logger: this.logger,
            logBodies: this.config.logBodies,
          }),
          modelMetricsInterceptor({ metrics: this.metrics, logger: this.logger }),
        ],
      },
    };
  }

  /** The workers run (see {@link Readiness.running}). */
  running(workers: Worker[], connection: NativeConnection): void {
    this.readiness.running(workers, connection);
  }

  /**
   * Checks the agents this process serves every `AMSFLOW_HEALTH_CHECK_MS`: `/readyz` and the
   * `amsflow_agent_*` gauges report each (stopped by a refusal, workflow task failing, not polling,
   * one of its approvals stuck on a failing workflow task).
   */
  watchAgents(client: Client, agentKeys: string[]): AgentHealthMonitor {
    void this.health?.stop();
    const health = new AgentHealthMonitor({
      client,
      agentKeys,
      metrics: this.metrics,
      intervalMs: this.config.healthCheckMs,
    });
    this.health = health.start();
    this.readiness.watchAgents(() => health.latest());
    return health;
  }

  /** Shutdown has begun: `/readyz` answers 503 from now on. */
  stopping(): void {
    void this.health?.stop();
    this.readiness.stopping();
  }

  /** Stops the agent checks; resolves once none is in flight (then their client may close). */
  async stopWatching(): Promise<void> {
    await this.health?.stop();
  }

  /** Closes the endpoint, stops draining the runtime's metrics, and exports the spans not yet exported. */
  async close(): Promise<void> {
    await this.health?.stop();
    await this.server?.close();
    this.server = undefined;
    this.runtimeMetrics?.close();
    this.runtimeMetrics = undefined;
    await this.tracing?.shutdown();
    this.tracing = undefined;
  }
}
