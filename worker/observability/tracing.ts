/**
 * OpenTelemetry tracing of a worker process, exported over OTLP/HTTP (JSON). Loaded (`import()`)
 * only when tracing is on (tracing-mode.ts): a worker that does not trace loads none of
 * OpenTelemetry's SDK, registers no interceptor and bundles no tracing code.
 *
 * Built on `@temporalio/interceptors-opentelemetry` 1.24.0 and the OpenTelemetry JS SDK 1.x line
 * (`@opentelemetry/sdk-trace-base` 1.30, the OTLP exporter 0.57), the line that package depends
 * on: its workflow interceptors run the 1.x SDK inside the workflow sandbox, where ids come from
 * the workflow's seeded random (a replay makes the same span ids), and hand finished spans to the
 * worker through a sink as 1.x `ReadableSpan`s; the 2.x SDK changed those shapes.
 *
 * The standard variables configure the export: `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` is
 * appended) or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, `..._TIMEOUT`,
 * `OTEL_SERVICE_NAME` (default `amsflow`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`, the
 * batch's `OTEL_BSP_*`. What a trace holds: docs/OPERATIONS.md, "Tracing".
 */
import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { Logger } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { AmsflowSpanProcessor, amsflowActivitySpans } from './tracing-spans';

/** What the process's workers are created with, and the export's end. */
export interface Tracing {
  /** Activity interceptors: the SDK's span, then amsflow's attributes (tracing-spans.ts). */
  activity: NonNullable<NonNullable<WorkerOptions['interceptors']>['activity']>;
  /** The sink the workflow interceptors (workflows/engine/tracing.ts) export their spans through. */
  sinks: NonNullable<WorkerOptions['sinks']>;
  /** The OTLP endpoint spans go to (for the start's line). */
  endpoint: string;
  /** Exports what is left and stops (after the workers have stopped). */
  shutdown(): Promise<void>;
}

/** OpenTelemetry's own warnings (an export that failed) as the process's log lines. */
function diagLogger(logger: Logger): otel.DiagLogger {
  const line =
    (level: 'warn' | 'error' | 'debug') =>
    (message: string, ...args: unknown[]): void => {
      logger[level](
        `tracing: ${message}`,
        args.length > 0 ? { details: args.map(String).join(' ') } : undefined,
      );
    };
  return {
    error: line('error'),
    warn: line('warn'),
    info: line('debug'),
    debug: line('debug'),
    verbose: line('debug'),
  };
}

/**
 * Starts tracing: the provider (registered as the process's, with the W3C propagator and an
 * AsyncLocalStorage context so that an activity's span is the parent of what it starts), the OTLP
 * exporter behind amsflow's scrubbing processor, and the interceptors and sink for the workers.
 */
export function startTracing(options: {
  logger: Logger;
  /** Where spans go (`tracesEndpoint` of tracing-mode.ts). */
  endpoint: string;
  env?: NodeJS.ProcessEnv;
}): Tracing {
  const env = options.env ?? process.env;
  otel.diag.setLogger(diagLogger(options.logger), otel.DiagLogLevel.WARN);
  const resource = Resource.default().merge(
    new Resource({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'amsflow' }),
  );
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== 'http/json') {
    options.logger.warn(`tracing: OTLP protocol ${protocol} is not supported; exporting http/json`);
  }
  const { endpoint } = options;
  const exporter = new OTLPTraceExporter({ url: endpoint });
  const processor = new AmsflowSpanProcessor(new BatchSpanProcessor(exporter));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const contextManager = new AsyncLocalStorageContextManager();
  provider.register({ contextManager, propagator: new W3CTraceContextPropagator() });
  const tracer = provider.getTracer('amsflow');
  return {
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
      amsflowActivitySpans(tracer),
    ],
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
    endpoint,
    async shutdown() {
      await provider.shutdown().catch((err: unknown) => {
        options.logger.warn(`tracing: ${String(err)}`);
      });
      // A later start in this process (a test's) registers afresh.
      otel.trace.disable();
      otel.context.disable();
      otel.propagation.disable();
      otel.diag.disable();
    },
  };
}
