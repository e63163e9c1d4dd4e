/**
 * Tracing's workflow interceptor module: bundled only when the worker traces (`AMSFLOW_TRACING=otlp`
 * or `OTEL_EXPORTER_OTLP_ENDPOINT`; `WORKFLOW_TRACING_MODULE` in worker/bundling.ts), so a worker
 * that does not trace bundles, loads and runs none of it.
 *
 * One trace per poll that read messages (worker/observability/tracing.ts makes the poll activity's
 * span a root and hands its context back in the poll's result, `amsflowTrace`):
 * - the agent workflow makes no span of its own (its run lives for hours: a span over it would put
 *   every message of the run in one trace). It joins each message's work to the trace of the poll
 *   that read it, by putting that poll's context in the Temporal headers of what it starts for the
 *   message: the handler child, a signal routing the message to a waiting conversation, the
 *   mark-read and typing requests, and the sends of the handler (by its workflow id in the request
 *   id) or of the agent's own answer to the message. It does so without a yield of its own, so its
 *   commands come in the same order as without tracing, and histories replay either way.
 * - every other workflow (handlers, approvals, reminders, a bot's own) runs under
 *   `@temporalio/interceptors-opentelemetry`'s interceptors: a `RunWorkflow:<type>` span, a
 *   `StartActivity:<type>` span for each activity, `StartChildWorkflow:<type>`, signals; amsflow adds
 *   the agent, the message id and, for an approval, its decision to the run's span.
 *
 * Span ids made in a workflow come from the workflow's seeded random: a replay makes the same
 * spans, and a replay exports nothing (the SDK's sink is not called while replaying).
 */
import * as otel from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { defaultPayloadConverter } from '@temporalio/common';
import type {
  ActivityInput,
  Next,
  SignalWorkflowInput,
  StartChildWorkflowExecutionInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { workflowInfo } from '@temporalio/workflow';
import { POLL_TRACE_FIELD, TRACE_HEADER } from '../../protocol/observability';

/** A trace context as the W3C propagator writes it. */
export type TraceCarrier = Record<string, string>;

/** Contexts remembered per run, at most: older messages' late work starts traces of its own. */
const REMEMBERED = 512;

/** A map that forgets its oldest entries past `limit`. */
class Recent<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly limit: number) {}
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value!);
  }
  get(key: string | undefined): V | undefined {
    return key === undefined ? undefined : this.map.get(key);
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** A handler's send request id (`<handler id>/<first run>/<previous run>/send/<n>`) without its tail. */
const HANDLER_REQUEST = /^(.+)\/[^/]+\/[^/]+\/send\/\d+$/;
/** The agent's own answer to a message (`<agent id>/<kind>/<message id>`). */
const AGENT_ANSWER = /^[^/]+\/[a-z-]+\/(.+)$/;

/**
 * The agent workflow's side: no spans, only the poll's context in the headers of what each
 * message starts. Every call returns what `next` returns, unawaited: no microtask is added.
 */
export class AgentTraceJoin implements WorkflowOutboundCallsInterceptor {
  private readonly byMessage = new Recent<TraceCarrier>(REMEMBERED);
  private readonly byHandler = new Recent<TraceCarrier>(REMEMBERED);

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    const carrier = this.carrierOf(input.activityType, record(input.args[0]));
    const result = next(carrier ? { ...input, headers: withCarrier(input.headers, carrier) } : input);
    // Registered before the workflow's own callbacks: the contexts are known when it dispatches.
    if (input.activityType === 'pollUpdates') result.then((page) => this.notePage(page), noop);
    return result;
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    const carrier = this.byMessage.get(text(record(record(input.options.args?.[0])?.message)?.id));
    if (!carrier) return next(input);
    if (input.options.workflowId) this.byHandler.set(input.options.workflowId, carrier);
    return next({ ...input, headers: withCarrier(input.headers, carrier) });
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) {
    const carrier = this.byMessage.get(text(record(record(input.args[0])?.message)?.id));
    return next(carrier ? { ...input, headers: withCarrier(input.headers, carrier) } : input);
  }

  /** The context of the poll that read the messages an activity is about, if remembered. */
  private carrierOf(
    activityType: string,
    arg: Record<string, unknown> | undefined,
  ): TraceCarrier | undefined {
    if (!arg) return undefined;
    if (activityType === 'sendMessage') {
      const request = text(arg.attemptId)?.replace(/#\d+$/, '');
      if (request === undefined) return undefined;
      const handler = HANDLER_REQUEST.exec(request)?.[1];
      const own = AGENT_ANSWER.exec(request)?.[1];
      const firstRead = Array.isArray(arg.markRead) ? text(arg.markRead[0]) : undefined;
      return this.byHandler.get(handler) ?? this.byMessage.get(own) ?? this.byMessage.get(firstRead);
    }
    if (activityType === 'markRead' && Array.isArray(arg.messageIds)) {
      return this.byMessage.get(text(arg.messageIds[0]));
    }
    if (activityType === 'sendTyping') return this.byMessage.get(text(arg.messageId));
    return undefined;
  }

  private notePage(page: unknown): void {
    const result = record(page);
    const carrier = record(result?.[POLL_TRACE_FIELD]);
    if (!carrier || typeof carrier.traceparent !== 'string' || !Array.isArray(result?.messages)) return;
    const ctx: TraceCarrier = { traceparent: carrier.traceparent };
    if (typeof carrier.tracestate === 'string') ctx.tracestate = carrier.tracestate;
    for (const message of result.messages) {
      const id = text(record(message)?.id);
      if (id !== undefined) this.byMessage.set(id, ctx);
    }
  }
}

function withCarrier<H extends Record<string, unknown>>(headers: H, carrier: TraceCarrier): H {
  return { ...headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
}

function noop(): void {}

/** The agent a workflow serves: its input's `agentKey`, else the second part of its id (`agent:<key>:…`). */
function agentOf(args: unknown[], workflowId: string): string | undefined {
  return text(record(args[0])?.agentKey) ?? /^[a-z]+:([^:]+)/.exec(workflowId)?.[1];
}

/**
 * Runs inside the SDK's `RunWorkflow` span (after its interceptor in the chain): amsflow's
 * attributes on it. Ids and names only, never an argument's text.
 */
export class RunAttributes implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    const span = otel.trace.getActiveSpan();
    if (!span) return next(input);
    const info = workflowInfo();
    const arg = record(input.args[0]);
    const attributes: otel.Attributes = {
      'temporal.workflow.type': info.workflowType,
      'temporal.workflow.id': info.workflowId,
      'temporal.run.id': info.runId,
    };
    const agent = agentOf(input.args, info.workflowId);
    if (agent !== undefined) attributes['amsflow.agent'] = agent;
    const messageId = text(record(arg?.message)?.id);
    if (messageId !== undefined) attributes['amsflow.message.id'] = messageId;
    span.setAttributes(attributes);
    const result = await next(input);
    const decision = text(record(result)?.decision);
    if (decision !== undefined) span.setAttribute('amsflow.approval.decision', decision);
    return result;
  }
}

/** The module's factory: amsflow's join for the agent workflow, the SDK's spans for the others. */
export const interceptors: WorkflowInterceptorsFactory = (): WorkflowInterceptors => {
  if (workflowInfo().workflowType === 'agentWorkflow') return { outbound: [new AgentTraceJoin()] };
  return {
    inbound: [new OpenTelemetryInboundInterceptor(), new RunAttributes()],
    outbound: [new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
