/**
 * The zod schemas of the worker's environment values that are more than a string: ports, JSON
 * objects, the service's limits (`AMSFLOW_LIMITS`) and the agent tuning (`AMSFLOW_TUNING`).
 */
import { z } from 'zod';
import type { AgentTuning } from '../protocol';
import { allowedHostProblem } from '../core/local-request';
import { mediaOriginProblem } from '../messaging/client-options';

export const nonEmpty = z.string().trim().min(1);
/** A port: 0 to 65535. An empty value is refused (coerced, it would silently mean 0, any port). */
export const port = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? Number.NaN : v),
  z.coerce.number().int().min(0).max(65535),
);
/** A comma-separated list, each entry checked by `problemOf`. */
const commaList = (problemOf: (entry: string) => string | undefined) =>
  z.string().transform((text, ctx) => {
    const entries = text
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const problem = problemOf(entry);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    }
    return entries;
  });

/** Host names (`AMSFLOW_METRICS_ALLOWED_HOSTS`). */
export const hostNames = commaList(allowedHostProblem);
/** Origins media downloads may carry the token to (`AMSFLOW_MEDIA_ORIGINS`). */
export const mediaOrigins = commaList(mediaOriginProblem);
export const jsonObject = <T extends z.ZodTypeAny>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

export const LimitsSchema = z
  .object({
    windowMs: z.number().int().positive(),
    messages: z.number().int().positive(),
    statuses: z.number().int().positive(),
    typing: z.number().int().positive(),
    updates: z.number().int().positive(),
    mediaUpload: z.number().int().positive(),
    mediaGet: z.number().int().positive(),
    mediaDelete: z.number().int().positive(),
  })
  .partial()
  .strict();

export const TuningSchema = z
  .object({
    pollTimeoutSeconds: z.number().int().min(0).max(25),
    pollLimit: z.number().int().positive(),
    pacingMarginMs: z.number().int().min(0),
    rateLimitBackoffMs: z.number().int().positive(),
    backoffBaseMs: z.number().int().positive(),
    backoffMaxMs: z.number().int().positive(),
    maxSendAttempts: z.number().int().positive(),
    orderingGraceMs: z.number().int().min(0),
    continueAsNewAfterEvents: z.number().int().min(100),
    recentIdsKept: z.number().int().positive(),
    activityHeartbeatTimeoutMs: z.number().int().min(1000),
    reconcileSettleMs: z.number().int().min(0),
    maxQueuedSends: z.number().int().positive(),
    maxQueuedSendBytes: z.number().int().min(4096),
    maxWaiters: z.number().int().positive(),
    maxPendingMarkRead: z.number().int().positive(),
    markReadGiveUpMs: z.number().int().min(0),
    markReadGraceMs: z.number().int().min(0),
    maxQueuedTyping: z.number().int().min(0),
    inboundBudget: z.number().int().min(0),
    inboundBudgetWindowMs: z.number().int().min(1000),
    idlePollMs: z.number().int().min(0),
    quietPollMs: z.number().int().min(0),
    receiptSettleMs: z.number().int().min(0),
    pollReserve: z.number().int().min(0),
    minSettleMs: z.number().int().min(0),
  })
  .partial()
  .strict() satisfies z.ZodType<AgentTuning>;
