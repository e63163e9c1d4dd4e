/**
 * Whether a worker traces: `AMSFLOW_TRACING=otlp`, or an OTLP endpoint in the standard variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). `AMSFLOW_TRACING=off` and
 * the standard `OTEL_SDK_DISABLED=true` / `OTEL_TRACES_EXPORTER=none` turn it off whatever the
 * endpoint. Off by default: then nothing of OpenTelemetry is loaded or bundled (tracing.ts is
 * imported only when on).
 */

/** `otlp`: export traces over OTLP/HTTP (tracing.ts); `off`: no interceptor, no SDK. */
export type TracingMode = 'off' | 'otlp';

/** The mode `env` asks for; `amsflowTracing` is `AMSFLOW_TRACING` as parsed (`off` or `otlp`). */
export function tracingModeOf(amsflowTracing: TracingMode | undefined, env: NodeJS.ProcessEnv): TracingMode {
  if (amsflowTracing === 'off') return 'off';
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return 'off';
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return 'off';
  if (amsflowTracing === 'otlp') return 'otlp';
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return endpoint ? 'otlp' : 'off';
}

/** The mode of a process that reads no worker configuration (`amsflow replay`): from `env` alone. */
export function tracingModeFromEnv(env: NodeJS.ProcessEnv = process.env): TracingMode {
  const given = env.AMSFLOW_TRACING?.trim().toLowerCase();
  return tracingModeOf(given === 'off' || given === 'otlp' ? given : undefined, env);
}

/** The OTLP/HTTP traces endpoint of `env`, as OpenTelemetry's exporter derives it (`/v1/traces` appended to the base). */
export function tracesEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
