/**
 * An activity inbound interceptor for model calls (`amsflowModelCall`): it counts each attempt by
 * outcome, the tokens the provider reported (input and output) and the call's duration, and logs
 * one debug line per attempt with those numbers only. Never a prompt, an answer or a key: the
 * model call's input and output are read for their counts, nothing else.
 */
import type { Context } from '@temporalio/activity';
import type { Logger } from '@temporalio/common';
import type { ActivityInterceptors } from '@temporalio/worker';
import { MODEL_FAILURE_TYPES, type ModelCallInput, type ModelCallOutput } from '../../protocol/models';
import type { AmsflowMetrics } from './amsflow-metrics';

export const MODEL_CALL_ACTIVITY = 'amsflowModelCall';

/** The outcome label of a failed attempt (a fixed set). */
export function modelFailureOutcome(err: unknown): 'unavailable' | 'refused' | 'cancelled' {
  const e = err as { type?: unknown; name?: unknown } | null;
  if (e?.name === 'CancelledFailure') return 'cancelled';
  return e?.type === MODEL_FAILURE_TYPES.refused ? 'refused' : 'unavailable';
}

/** The interceptor factory for `WorkerOptions.interceptors.activity`. */
export function modelMetricsInterceptor(options: {
  metrics: AmsflowMetrics;
  logger: Logger;
}): (ctx: Context) => ActivityInterceptors {
  const { metrics: m, logger } = options;
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        if (ctx.info.activityType !== MODEL_CALL_ACTIVITY) return next(input);
        const agent = String((input.args[0] as Partial<ModelCallInput> | undefined)?.agentKey ?? 'unknown');
        const meta = {
          agentKey: agent,
          workflowId: ctx.info.workflowExecution?.workflowId,
          attempt: ctx.info.attempt,
        };
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const out = (await next(input)) as ModelCallOutput;
          if (out.status === 'notConfigured') {
            m.modelCalls.inc({ agent, outcome: 'not_configured' });
            return out;
          }
          m.modelCalls.inc({ agent, outcome: 'answered' });
          m.modelTokens.inc({ agent, kind: 'input' }, out.usage.inputTokens);
          m.modelTokens.inc({ agent, kind: 'output' }, out.usage.outputTokens);
          m.modelCallDuration.observe({ agent }, seconds());
          logger.debug('model: answered', {
            ...meta,
            model: out.model,
            finishReason: out.finishReason,
            toolCalls: out.toolCalls.length,
            inputTokens: out.usage.inputTokens,
            outputTokens: out.usage.outputTokens,
          });
          return out;
        } catch (err) {
          const outcome = modelFailureOutcome(err);
          m.modelCalls.inc({ agent, outcome });
          m.modelCallDuration.observe({ agent }, seconds());
          logger.debug('model: failed', { ...meta, outcome });
          throw err;
        }
      },
    },
  });
}
