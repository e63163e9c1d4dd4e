/**
 * amsflow's own metrics, all named `amsflow_*`, on one registry per process. Activity-side ones
 * are recorded by the activity interceptor (activity-metrics.ts), workflow-side ones arrive
 * through the workflow metric sink (workflow-metrics-sink.ts). Labels are bounded: the agent
 * key, the endpoint and small fixed sets of outcomes.
 */
import { AGENT_HEALTH_STATUSES, type AgentHealth } from './health-status';
import { Counter, Gauge, Histogram, MetricsRegistry } from './metrics-registry';

/** Poll latency buckets, in seconds: long polls wait up to 25 s. */
const POLL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30];
/** Send latency buckets, in seconds. */
const SEND_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Model call latency buckets, in seconds: a model thinks for seconds, sometimes minutes. */
const MODEL_BUCKETS = [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/** The metrics amsflow records, by role. */
export class AmsflowMetrics {
  readonly registry = new MetricsRegistry();
  readonly sends: Counter = this.registry.counter(
    'amsflow_sends_total',
    'Send attempts by outcome: accepted, ambiguous, rejected_429, rejected_503, rejected_connect, rejected_aborted, invalid, unauthorized, unknown_agent.',
  );
  readonly ambiguousSends: Counter = this.registry.counter(
    'amsflow_ambiguous_sends_total',
    'Send attempts whose outcome is unknown (never re-sent unless the caller opted in), by reason.',
  );
  readonly sendDuration: Histogram = this.registry.histogram(
    'amsflow_send_duration_seconds',
    'Duration of one send attempt (HTTP request), any outcome.',
    SEND_BUCKETS,
  );
  readonly rejections: Counter = this.registry.counter(
    'amsflow_rejections_total',
    'Requests the service refused for now (HTTP 429 or 503), by endpoint and status.',
  );
  readonly polls: Counter = this.registry.counter(
    'amsflow_polls_total',
    'Long polls by outcome: page, empty, replaced, cancelled, failed (rate() gives polls per second).',
  );
  readonly pollDuration: Histogram = this.registry.histogram(
    'amsflow_poll_duration_seconds',
    'Duration of one long poll (its wait included), completed polls only.',
    POLL_BUCKETS,
  );
  readonly messagesReceived: Counter = this.registry.counter(
    'amsflow_messages_received_total',
    'Inbound messages in the pages polled (a page read again after a crash counts again).',
  );
  readonly receipts: Counter = this.registry.counter(
    'amsflow_receipts_total',
    'Delivery receipts (statuses) in the pages polled, by status.',
  );
  readonly statusRequests: Counter = this.registry.counter(
    'amsflow_status_requests_total',
    'Mark-read and typing requests by kind and outcome (ok, failed).',
  );
  readonly outboxLength: Gauge = this.registry.gauge(
    'amsflow_outbox_queue_length',
    'Send requests waiting in the agent outbox (the one in flight excluded), as last reported.',
  );
  readonly windowUtilisation: Gauge = this.registry.gauge(
    'amsflow_send_window_utilisation',
    "Share (0 to 1) of the endpoint's per-window budget in use, as last reported by the agent workflow.",
  );
  readonly handlerStarts: Counter = this.registry.counter(
    'amsflow_handler_starts_total',
    'Handler workflows started for inbound messages.',
  );
  readonly remindersFired: Counter = this.registry.counter(
    'amsflow_reminders_fired_total',
    'Reminders that came due, by result: delivered, failed, skipped (later than maxLateness).',
  );
  readonly approvals: Counter = this.registry.counter(
    'amsflow_approvals_total',
    'Approvals decided, by decision: approved, rejected, expired, cancelled.',
  );
  readonly droppedSignals: Counter = this.registry.counter(
    'amsflow_dropped_signals_total',
    'Signals to amsflow workflows dropped because their argument did not fit (logged once each), by workflow (its type) and signal.',
  );
  readonly agentRefusals: Counter = this.registry.counter(
    'amsflow_agent_refusals_total',
    'Final refusals (401, or a 4xx that must not be retried) that stopped an agent, by agent, endpoint and status.',
  );
  readonly sendFailures: Counter = this.registry.counter(
    'amsflow_send_failures_total',
    'Send requests the outbox gave up, by agent and failure type (AmbiguousSend, SendRejected, ...), whoever asked.',
  );
  readonly modelCalls: Counter = this.registry.counter(
    'amsflow_model_calls_total',
    'Model call attempts by outcome: answered, not_configured, unavailable (429, 5xx, timeout: retried), refused, cancelled.',
  );
  readonly modelTokens: Counter = this.registry.counter(
    'amsflow_model_tokens_total',
    'Tokens model calls used, by kind: input (the prompt, memory included) and output, as the provider reported them.',
  );
  readonly modelCallDuration: Histogram = this.registry.histogram(
    'amsflow_model_call_duration_seconds',
    'Duration of one model call attempt, any outcome.',
    MODEL_BUCKETS,
  );
  readonly workflowMetricsDropped: Counter = this.registry.counter(
    'amsflow_workflow_metrics_dropped_total',
    'Workflow metric updates with an unknown amsflow_ name or kind (a newer bundle than this worker).',
  );
  readonly agentUp: Gauge = this.registry.gauge(
    'amsflow_agent_up',
    "1 while the agent's workflow runs, its workflow task succeeds and it polls on time; 0 otherwise (see amsflow_agent_status).",
  );
  readonly agentStatus: Gauge = this.registry.gauge(
    'amsflow_agent_status',
    'The agent health check: 1 for its current status (ok, unauthorized, refused, task_failing, not_polling, not_running, approval_stuck, unknown), 0 for the others.',
  );
  readonly agentStuckApprovals: Gauge = this.registry.gauge(
    'amsflow_agent_stuck_approvals',
    "The agent's approvals whose workflow task keeps failing (attempt 2 or later): they take no answer and decide nothing.",
  );
  readonly agentTaskAttempt: Gauge = this.registry.gauge(
    'amsflow_agent_workflow_task_attempt',
    "Attempt of the agent workflow's pending workflow task (0: none pending); 2 or more: it keeps failing.",
  );
  readonly agentPollOverdue: Gauge = this.registry.gauge(
    'amsflow_agent_poll_overdue_seconds',
    "Seconds past the time by which the agent's next poll should have ended (0: on time).",
  );

  /** Records a health check's results (agent-health.ts). */
  recordAgentHealth(results: AgentHealth[]): void {
    for (const r of results) {
      const agent = r.agentKey;
      this.agentUp.set({ agent }, r.status === 'ok' ? 1 : 0);
      for (const status of AGENT_HEALTH_STATUSES)
        this.agentStatus.set({ agent, status }, r.status === status ? 1 : 0);
      this.agentTaskAttempt.set({ agent }, r.workflowTaskAttempt ?? 0);
      this.agentPollOverdue.set({ agent }, r.pollOverdueSeconds ?? 0);
      this.agentStuckApprovals.set({ agent }, r.stuckApprovals?.length ?? 0);
    }
  }
}
