/**
 * The agent tuning of a run whose windows are scaled down from the spec's minute (benchmarks, the
 * chaos run, the engine suites): timeouts and backoffs shortened, the receipt settle one poll's
 * share of the window (4 s of a minute) and the timer-resolution floor scaled (1 s of a minute).
 */
import type { AgentTuning } from '../protocol';

/** Limits raised on every endpoint (`perWindow` a window): figures of the engine's own cost, not the service's pacing. */
export function raisedLimits(perWindow: number): Record<string, number> {
  const endpoints = ['messages', 'statuses', 'typing', 'updates', 'mediaUpload', 'mediaGet', 'mediaDelete'];
  return Object.fromEntries(endpoints.map((k) => [k, perWindow]));
}

export function scaledTuning(windowMs: number): AgentTuning {
  return {
    pollTimeoutSeconds: 2,
    activityHeartbeatTimeoutMs: 3000,
    rateLimitBackoffMs: 500,
    reconcileSettleMs: 3000,
    receiptSettleMs: Math.round(windowMs / 15),
    minSettleMs: Math.round(windowMs / 60),
  };
}
