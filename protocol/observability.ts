/**
 * Observability's names shared by workflows and the worker: the metrics workflows emit, and where
 * a poll's span context travels when the worker traces.
 */

/**
 * Names of the metrics amsflow's workflows emit (through `metricMeter` of `@temporalio/workflow`,
 * that is the SDK's workflow metric sink), shared with the worker that turns them into
 * `amsflow_*` Prometheus series. Labels: `agent` always, plus the one named here.
 */

export const WORKFLOW_METRICS = {
  /** Gauge: send requests waiting in the outbox. */
  outboxLength: 'amsflow_outbox_queue_length',
  /** Gauge (0 to 1), label `endpoint`: share of the endpoint's window budget in use. */
  windowUtilisation: 'amsflow_send_window_utilisation',
  /** Counter: handler workflows started. */
  handlerStarts: 'amsflow_handler_starts_total',
  /** Counter, label `result` (delivered | failed | skipped): reminders that came due. */
  remindersFired: 'amsflow_reminders_fired_total',
  /** Counter, label `decision` (approved | rejected | expired | cancelled): approvals decided. */
  approvals: 'amsflow_approvals_total',
  /** Counter, labels `workflow` (the workflow type) and `signal`: signals dropped because their argument did not fit. */
  droppedSignals: 'amsflow_dropped_signals_total',
  /** Counter, labels `endpoint` and `status`: final refusals that stopped an agent (401, a 4xx). */
  agentRefusals: 'amsflow_agent_refusals_total',
  /** Counter, label `type` (a send failure type): send requests given up, whoever asked. */
  sendFailures: 'amsflow_send_failures_total',
} as const;

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
