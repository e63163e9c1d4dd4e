/**
 * Defaults of the agent workflow's tuning (`AgentTuning`). The spec's limits stay the defaults;
 * tests shorten windows and timeouts through the same fields.
 */
import type { AgentTuning } from '../../protocol';

export type Tuning = Required<AgentTuning>;

export const DEFAULT_TUNING: Tuning = {
  pollTimeoutSeconds: 25,
  idlePollMs: 0,
  quietPollMs: 300_000,
  // About one poll's share of the updates budget (60 s / 15): spent evenly under pressure.
  receiptSettleMs: 4000,
  pollReserve: 2,
  // Temporal fires timers about a second late at best: a shorter settle would cost that second.
  minSettleMs: 1000,
  pollLimit: 50,
  pacingMarginMs: 100,
  rateLimitBackoffMs: 5000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  // The spec allows three retries after a retryable failure: four attempts in all.
  maxSendAttempts: 4,
  orderingGraceMs: 30_000,
  // A worker taking a run over replays its whole history within the 10-s workflow task timeout,
  // also on a loaded machine (at 4,000 the cluster chaos run's replays took over 10 s).
  continueAsNewAfterEvents: 1000,
  recentIdsKept: 1000,
  activityHeartbeatTimeoutMs: 10_000,
  reconcileSettleMs: 60_000,
  maxQueuedSends: 500,
  maxQueuedSendBytes: 512 * 1024,
  maxWaiters: 200,
  maxPendingMarkRead: 500,
  markReadGiveUpMs: 3_600_000,
  // Most replies leave well within it (an echo in tens of ms), taking their read tick along; a
  // slower handler (a model turn) shows the message read after this long, well before the reply.
  markReadGraceMs: 3000,
  maxQueuedTyping: 5,
  inboundBudget: 0,
  inboundBudgetWindowMs: 60_000,
};

export function resolveTuning(tuning: AgentTuning | undefined): Tuning {
  const resolved = { ...DEFAULT_TUNING };
  for (const [key, value] of Object.entries(tuning ?? {})) {
    if (value !== undefined) (resolved as Record<string, number>)[key] = value as number;
  }
  return resolved;
}

/** The history length at which a run continues as new: its tuning's, else the default. */
export function continueAsNewAfterEvents(tuning: AgentTuning | undefined): number {
  return tuning?.continueAsNewAfterEvents ?? DEFAULT_TUNING.continueAsNewAfterEvents;
}
