/**
 * What tracing's two sides share (worker/observability/tracing-spans.ts, workflows/engine/
 * tracing.ts): where a poll's span context travels. Only present when the worker traces.
 */

/** The header `@temporalio/interceptors-opentelemetry` reads a span context from. */
export const TRACE_HEADER = '_tracer-data';

/**
 * The field of a poll's result (`pollUpdates`) that carries its span's context, as the W3C
 * propagator writes it (`traceparent`, maybe `tracestate`): set only on a page with messages
 * read by a tracing worker; the agent workflow reads it only in tracing's interceptor.
 */
export const POLL_TRACE_FIELD = 'amsflowTrace';
