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
