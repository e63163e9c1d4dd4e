/** What a worker process's observability is configured with (worker/config.ts reads it from the environment). */

/** Metrics, health and logs of a worker process (see worker/observability/README.md). */
export interface ObservabilityConfig {
  /** `AMSFLOW_METRICS_PORT`: a port, 0 for any free one, or `off`. */
  metricsPort: number | 'off';
  /** `AMSFLOW_METRICS_HOST`. */
  metricsHost: string;
  /** `AMSFLOW_METRICS_ALLOWED_HOSTS`: names it answers to besides its address (unset: none). */
  metricsAllowedHosts?: string[];
  /** `AMSFLOW_LOG_FORMAT`. */
  logFormat: 'json' | 'pretty';
  /** `AMSFLOW_LOG_LEVEL`. */
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** `AMSFLOW_LOG_BODIES=1`: message bodies in debug lines. */
  logBodies: boolean;
  /** `AMSFLOW_HEALTH_CHECK_MS`: between two checks of every agent's health (default 15000). */
  healthCheckMs?: number;
  /**
   * `otlp`: traces exported over OTLP (`AMSFLOW_TRACING=otlp`, or `OTEL_EXPORTER_OTLP_ENDPOINT`
   * set; tracing-mode.ts). Absent or `off`: no tracing, nothing of OpenTelemetry loaded.
   */
  tracing?: 'off' | 'otlp';
  /** With tracing: the OTLP/HTTP traces endpoint (tracing-mode.ts `tracesEndpoint`). */
  tracesEndpoint?: string;
}
