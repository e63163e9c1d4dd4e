/**
 * An activity inbound interceptor (`WorkerOptions.interceptors.activity`) that records amsflow's
 * activity-side metrics from each activity's input, result or failure (polls, sends by outcome,
 * 429/503s, receipts) and logs each at debug level, with message bodies only when asked to.
 * The activities themselves stay as they are.
 */
import type { Context } from '@temporalio/activity';
import type { Logger } from '@temporalio/common';
import type { ActivityInterceptors } from '@temporalio/worker';
import type { MarkReadReport } from '../../activities/mark-reads';
import type { PollOutput, SendFailureDetails, SendInput, SendOutput } from '../../activities/types';
import { ActivityFailureTypes as F } from '../../protocol/failures';
import type { AmsflowMetrics } from './amsflow-metrics';

const ENDPOINTS: Record<string, string> = {
  pollUpdates: 'updates',
  sendMessage: 'messages',
  markRead: 'statuses',
  sendTyping: 'statuses',
  uploadMedia: 'media',
  getMedia: 'media',
  deleteMedia: 'media',
  downloadMedia: 'media',
};
const RECEIPT_STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);
const AMBIGUOUS_REASONS = new Set([
  'server_error',
  'connection',
  'timeout',
  'malformed_response',
  'unexpected',
]);

interface FailureView {
  type?: string;
  status?: number;
  reason?: string;
  cancelled: boolean;
  /** A failed send's report of the mark-reads that went before it. */
  markRead?: MarkReadReport;
}

function failureView(err: unknown): FailureView {
  const e = err as { type?: unknown; details?: unknown[]; name?: unknown } | null;
  const details = (Array.isArray(e?.details) ? e.details[0] : undefined) as
    { status?: unknown; reason?: unknown } | undefined;
  return {
    type: typeof e?.type === 'string' ? e.type : undefined,
    status: typeof details?.status === 'number' ? details.status : undefined,
    reason: typeof details?.reason === 'string' ? details.reason : undefined,
    cancelled: e?.name === 'CancelledFailure',
    markRead: (details as SendFailureDetails | undefined)?.markRead,
  };
}

/** The outcome label of a failed send attempt. */
export function sendOutcome(f: FailureView): string {
  switch (f.type) {
    case F.sendRejected:
      if (f.status === 429 || f.status === 503) return `rejected_${f.status}`;
      return f.reason === 'connect' ? 'rejected_connect' : 'rejected_aborted';
    case F.sendAmbiguous:
      return 'ambiguous';
    case F.sendInvalid:
      return 'invalid';
    case F.sendUnauthorized:
      return 'unauthorized';
    case F.unknownAgent:
      return 'unknown_agent';
    default:
      return 'ambiguous';
  }
}

/** A text message's body, or the kind of message it is. */
function bodyOf(message: { type?: string; text?: { body?: string } } | undefined): string | undefined {
  return message?.text?.body ?? (message?.type ? `<${message.type}>` : undefined);
}

/**
 * What the poll activity reports of the input that could not be handed on as received: page
 * members that did not fit their schema, messages cut to fit a result, pages read again smaller.
 * Registered here, beside the only code that records them (registering is idempotent).
 */
function inboundCounters(m: AmsflowMetrics) {
  const misfits = m.registry.counter(
    'amsflow_inbound_misfits_total',
    'Page members that did not fit their schema or a poll result, by kind (message, status, contact) and action (unknown: handed on as type unknown; trimmed: without the members that did not fit; skipped: left out). Each is logged at WARN, without content.',
  );
  const truncated = m.registry.counter(
    'amsflow_inbound_truncated_total',
    'Messages too large on their own for a poll result, handed on cut (marked `truncated`).',
  );
  const rereads = m.registry.counter(
    'amsflow_poll_rereads_total',
    'Polls whose page was too large for a poll result, read again at the same offset with a smaller limit.',
  );
  return {
    rereads,
    record(agent: string, out: Extract<PollOutput, { status: 'page' }>): void {
      for (const { kind, action } of out.misfits ?? []) misfits.inc({ agent, kind, action });
      const cut = out.messages.filter((msg) => isTruncation(msg.truncated)).length;
      if (cut > 0) truncated.inc({ agent }, cut);
    },
  };
}

function isTruncation(value: unknown): boolean {
  return typeof (value as { originalBytes?: unknown } | undefined)?.originalBytes === 'number';
}

/** Options of {@link activityMetricsInterceptor}. */
export interface ActivityObservabilityOptions {
  metrics: AmsflowMetrics;
  logger: Logger;
  /** Log message bodies (at debug level): `AMSFLOW_LOG_BODIES=1`. */
  logBodies: boolean;
}

/** The interceptor factory for `WorkerOptions.interceptors.activity`. */
export function activityMetricsInterceptor(
  options: ActivityObservabilityOptions,
): (ctx: Context) => ActivityInterceptors {
  const { metrics: m, logger, logBodies } = options;
  const inbound = inboundCounters(m);
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const activity = ctx.info.activityType;
        const endpoint = ENDPOINTS[activity];
        const arg = input.args[0] as { agentKey?: unknown } | undefined;
        if (!endpoint || typeof arg?.agentKey !== 'string') return next(input);
        const agent = arg.agentKey;
        const meta = {
          agentKey: agent,
          workflowId: ctx.info.workflowExecution?.workflowId,
          runId: ctx.info.workflowExecution?.runId,
          activity,
        };
        /** The mark-reads an activity made (its own, or riding with a send): one request each. */
        const countMarkReads = (report: MarkReadReport | undefined) => {
          if (!report) return;
          if (report.done.length)
            m.statusRequests.inc({ agent, kind: 'markRead', outcome: 'ok' }, report.done.length);
          // Refused, to wait for, or of unknown outcome: each a request that did not mark.
          const failed = report.failed.length + report.refused.length + (report.unknown?.length ?? 0);
          if (failed) m.statusRequests.inc({ agent, kind: 'markRead', outcome: 'failed' }, failed);
          for (const [status, n] of Object.entries(report.rejected ?? {}))
            m.rejections.inc({ agent, endpoint: 'statuses', status }, n);
        };
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const result = await next(input);
          if (activity === 'pollUpdates') {
            const out = result as PollOutput;
            // A quiet poll made several HTTP polls (the empty ones listed, and those whose page
            // was read again, smaller); each counts, and the duration is that of the last one,
            // the request that returned.
            const rereads = out.status === 'page' ? (out.reread?.polls ?? 0) : 0;
            const empty = (out.quietPolls?.length ?? 0) - rereads;
            if (empty > 0) m.polls.inc({ agent, outcome: 'empty' }, empty);
            if (rereads > 0) {
              m.polls.inc({ agent, outcome: 'page' }, rereads);
              inbound.rereads.inc({ agent }, rereads);
            }
            m.polls.inc({ agent, outcome: out.status });
            if (out.status === 'page') inbound.record(agent, out);
            m.pollDuration.observe({ agent }, Math.max(0, Date.now() - out.startedAt) / 1000);
            if (out.status === 'page') {
              m.messagesReceived.inc({ agent }, out.messages.length);
              for (const s of out.statuses) {
                m.receipts.inc({ agent, status: RECEIPT_STATUSES.has(s.status) ? s.status : 'other' });
              }
              if (out.messages.length > 0 || out.statuses.length > 0) {
                logger.debug('poll: page', {
                  ...meta,
                  messageIds: out.messages.map((msg) => msg.id),
                  receipts: out.statuses.length,
                  ...(logBodies ? { bodies: out.messages.map((msg) => bodyOf(msg as never)) } : {}),
                });
              }
            }
          } else if (activity === 'sendMessage') {
            countMarkReads((result as SendOutput).markRead);
            m.sends.inc({ agent, outcome: 'accepted' });
            m.sendDuration.observe({ agent }, seconds());
            const send = input.args[0] as SendInput;
            logger.debug('send: accepted', {
              ...meta,
              attemptId: send.attemptId,
              messageId: (result as SendOutput).messageId,
              ...(logBodies ? { body: bodyOf(send.message) } : {}),
            });
          } else if (activity === 'markRead') {
            countMarkReads(result as MarkReadReport);
          } else if (endpoint === 'statuses') {
            m.statusRequests.inc({ agent, kind: activity, outcome: 'ok' });
          }
          return result;
        } catch (err) {
          const f = failureView(err);
          if (f.status === 429 || f.status === 503) {
            m.rejections.inc({ agent, endpoint, status: String(f.status) });
          }
          if (activity === 'pollUpdates') {
            m.polls.inc({ agent, outcome: f.cancelled ? 'cancelled' : 'failed' });
          } else if (activity === 'sendMessage') {
            countMarkReads(f.markRead);
            const outcome = sendOutcome(f);
            m.sends.inc({ agent, outcome });
            m.sendDuration.observe({ agent }, seconds());
            if (outcome === 'ambiguous') {
              const reason = f.reason && AMBIGUOUS_REASONS.has(f.reason) ? f.reason : 'unexpected';
              m.ambiguousSends.inc({ agent, reason });
            }
            logger.debug('send: failed', {
              ...meta,
              attemptId: (input.args[0] as SendInput).attemptId,
              outcome,
              type: f.type,
            });
          } else if (endpoint === 'statuses') {
            m.statusRequests.inc({ agent, kind: activity, outcome: 'failed' });
          }
          throw err;
        }
      },
    },
  });
}
