/**
 * What amsflow adds to `@temporalio/interceptors-opentelemetry`'s spans on the worker side, and
 * what it keeps out of them:
 * - {@link amsflowActivitySpans}: an activity inbound interceptor running inside the SDK's
 *   `RunActivity:<type>` span: the agent, the workflow and activity ids, the message ids of a poll,
 *   a send's attempt and the id the service gave it; for a model call a `chat <model>` client span
 *   with the GenAI semantic conventions' attributes (provider, model, tokens, finish reasons);
 *   and, on a poll that read messages, the poll span's context in its result (`amsflowTrace`), which
 *   the agent workflow puts in the headers of the message's handler and sends (workflows/engine/
 *   tracing.ts). The activities themselves are unchanged.
 * - {@link AmsflowSpanProcessor}: before the exporter's batch, every span loses what could carry
 *   a human's text, a token or a key: attributes outside a short allow-list (the SDK copies the
 *   whole workflow info, memo and search attributes included, onto workflow spans), failure
 *   messages and stacks (only the failure's type is kept); what remains is redacted like the logs
 *   (core/redact.ts). Polls that read nothing (an idle agent polls about 15 times a minute) are
 *   dropped, so a trace is a message's.
 */
import * as otel from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactText } from '../../core/redact';
import type { ModelCallInput, ModelCallOutput } from '../../protocol/models';
import { POLL_TRACE_FIELD } from '../../protocol/observability';
import { MODEL_CALL_ACTIVITY } from './model-metrics';

/** The poll activity: its span is a trace's root, dropped when it read no message. */
export const POLL_ACTIVITY = 'pollUpdates';
/** The attribute with the number of messages a poll read. */
export const POLL_MESSAGES = 'amsflow.poll.messages';

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** A failure's stable type (`ApplicationFailure.type`, else its class name). */
function failureType(err: unknown): string {
  const e = record(err);
  return text(e?.type) ?? text(e?.name) ?? 'Error';
}

/** Ids of messages in a list of messages or ids. */
function idsOf(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((m) => text(m) ?? text(record(m)?.id)).filter((id): id is string => id !== undefined);
}

/** The activity's attributes known before it runs. */
function startAttributes(ctx: ActivityContext, arg: Record<string, unknown> | undefined): otel.Attributes {
  const { info } = ctx;
  const workflowId = info.workflowExecution?.workflowId;
  const agent = text(arg?.agentKey) ?? (workflowId ? /^[a-z]+:([^:]+)/.exec(workflowId)?.[1] : undefined);
  const attributes: otel.Attributes = {
    'temporal.activity.type': info.activityType,
    'temporal.activity.id': info.activityId,
    'temporal.activity.attempt': info.attempt,
    'temporal.task_queue': info.taskQueue,
  };
  if (info.workflowType) attributes['temporal.workflow.type'] = info.workflowType;
  if (workflowId) attributes['temporal.workflow.id'] = workflowId;
  if (info.workflowExecution?.runId) attributes['temporal.run.id'] = info.workflowExecution.runId;
  if (agent) attributes['amsflow.agent'] = agent;
  if (info.activityType === 'sendMessage' && text(arg?.attemptId)) {
    attributes['amsflow.send.attempt_id'] = text(arg?.attemptId);
    const reads = idsOf(arg?.markRead);
    if (reads.length > 0) attributes['amsflow.message.ids'] = reads;
  }
  if (info.activityType === 'markRead') attributes['amsflow.message.ids'] = idsOf(arg?.messageIds);
  if (info.activityType === 'sendTyping' && text(arg?.messageId))
    attributes['amsflow.message.id'] = text(arg?.messageId);
  return attributes;
}

/** A model call inside a `chat <model>` client span (GenAI semantic conventions). */
async function chatSpan(
  tracer: otel.Tracer,
  input: ModelCallInput | undefined,
  call: () => Promise<unknown>,
) {
  const attributes: otel.Attributes = { 'gen_ai.operation.name': 'chat' };
  if (typeof input?.maxOutputTokens === 'number')
    attributes['gen_ai.request.max_tokens'] = input.maxOutputTokens;
  if (typeof input?.temperature === 'number') attributes['gen_ai.request.temperature'] = input.temperature;
  if (text(input?.agentKey)) attributes['amsflow.agent'] = input!.agentKey;
  return tracer.startActiveSpan('chat', { kind: otel.SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const out = (await call()) as ModelCallOutput;
      if (out.status === 'answered') {
        // `provider:model` (activities/model-calls.ts), or a module's name.
        const [provider, model] = out.model.includes(':')
          ? out.model.split(/:(.*)/s)
          : ['amsflow', out.model];
        span.updateName(`chat ${model}`);
        span.setAttributes({
          'gen_ai.provider.name': provider,
          'gen_ai.system': provider,
          'gen_ai.request.model': model,
          'gen_ai.response.model': model,
          'gen_ai.usage.input_tokens': out.usage.inputTokens,
          'gen_ai.usage.output_tokens': out.usage.outputTokens,
          'gen_ai.response.finish_reasons': [out.finishReason],
          'amsflow.model.tool_calls': out.toolCalls.length,
          'amsflow.model.tool_names': out.toolCalls.map((c) => c.name),
        });
      } else {
        span.setAttribute('amsflow.model.status', out.status);
      }
      return out;
    } catch (err) {
      span.setAttribute('error.type', failureType(err));
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: failureType(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The interceptor factory for `WorkerOptions.interceptors.activity`, after the SDK's (inside its span). */
export function amsflowActivitySpans(tracer: otel.Tracer): (ctx: ActivityContext) => ActivityInterceptors {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const span = otel.trace.getActiveSpan();
        if (!span) return next(input);
        const arg = record(input.args[0]);
        span.setAttributes(startAttributes(ctx, arg));
        const type = ctx.info.activityType;
        try {
          if (type === MODEL_CALL_ACTIVITY) {
            return await chatSpan(tracer, arg as ModelCallInput | undefined, () => next(input));
          }
          const result = await next(input);
          const out = record(result);
          if (type === POLL_ACTIVITY && out) {
            const ids = out.status === 'page' ? idsOf(out.messages) : [];
            span.setAttributes({
              'amsflow.poll.status': String(out.status),
              [POLL_MESSAGES]: ids.length,
              'amsflow.message.ids': ids,
            });
            if (ids.length === 0) return result;
            // The agent workflow joins each message's handler and sends to this poll's trace.
            const carrier: Record<string, string> = {};
            otel.propagation.inject(otel.context.active(), carrier);
            return { ...out, [POLL_TRACE_FIELD]: carrier };
          }
          if (type === 'sendMessage' && text(out?.messageId))
            span.setAttribute('amsflow.send.message_id', text(out?.messageId)!);
          return result;
        } catch (err) {
          span.setAttribute('error.type', failureType(err));
          throw err;
        }
      },
    },
  });
}

/** Attribute names kept on a span (everything else is dropped: it could carry text). */
const KEPT = /^(amsflow\.|gen_ai\.|temporal[._]|error\.type$|exception\.type$|run_id$|temporal[A-Z])/;
/** Workflow info fields the SDK's sink copies onto workflow spans that are kept. */
const KEPT_INFO = new Set(['workflowId', 'runId', 'workflowType', 'taskQueue', 'namespace']);

function scrubAttributes(attributes: otel.Attributes): void {
  for (const [key, value] of Object.entries(attributes)) {
    const kept = (KEPT.test(key) || KEPT_INFO.has(key)) && isPlain(value);
    if (!kept) delete attributes[key];
    else if (typeof value === 'string') attributes[key] = redactText(value);
    else if (Array.isArray(value) && value.some((v) => typeof v === 'string')) {
      attributes[key] = (value as (string | null | undefined)[]).map((v) =>
        typeof v === 'string' ? redactText(v) : v,
      );
    }
  }
}

function isPlain(value: unknown): boolean {
  const plain = (v: unknown) => ['string', 'number', 'boolean'].includes(typeof v);
  return plain(value) || (Array.isArray(value) && value.every((v) => v == null || plain(v)));
}

/** Failures of a poll that are its ordinary end: cancelled (a newer poll, a drain), not a fault. */
const POLL_ENDS = new Set(['CancelledFailure', 'AbortError']);

/** A poll that read nothing and did not fail (the idle agent's many polls, a cancelled one): not exported. */
export function isIdlePoll(span: ReadableSpan): boolean {
  if (span.parentSpanId || !span.name.endsWith(`:${POLL_ACTIVITY}`)) return false;
  if (Number(span.attributes[POLL_MESSAGES] ?? 0) > 0) return false;
  return (
    span.status.code !== otel.SpanStatusCode.ERROR || POLL_ENDS.has(String(span.attributes['error.type']))
  );
}

/**
 * Scrubs every span (see the file's comment) and drops idle polls, then hands it to `next` (the
 * exporter's batch). Workflow spans come here too (`makeWorkflowExporter`).
 */
export class AmsflowSpanProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: otel.Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (isIdlePoll(span)) return;
    scrubAttributes(span.attributes);
    for (const event of span.events) {
      if (event.attributes) scrubAttributes(event.attributes);
    }
    for (const link of span.links) {
      if (link.attributes) scrubAttributes(link.attributes);
    }
    const status = span.status;
    if (status.message !== undefined) {
      // A failure's message can quote anything (a bot's error, a provider's answer): its type only.
      const type = span.events.find((e) => e.name === 'exception')?.attributes?.['exception.type'];
      status.message = typeof type === 'string' ? type : 'error';
    }
    this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}
