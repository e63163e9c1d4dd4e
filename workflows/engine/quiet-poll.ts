/**
 * The workflow's side of quiet polling (activities/quiet-polling.ts): while polls bring nothing
 * needed now (empty pages, receipts nobody watches), one poll activity polls again by itself for
 * up to `quietPollMs`, so an idle agent costs no workflow task per long poll, nor a reply its
 * receipts. This module decides when a poll may be quiet, and records the
 * activity's extra polls in the updates window. Pure.
 */
import type { QuietPollingInput } from '../../activities/quiet-polling';
import type { SlidingWindow } from '../../core/sliding-window';
import type { Tuning } from './tuning';

export interface QuietPollContext {
  tuning: Tuning;
  limits: { updates: number; windowMs: number };
  window: SlidingWindow;
  /** A reconciliation waits for a poll that starts after its fence: polls return at once. */
  fenceWanted: boolean;
  /** Message ids whose receipts a conversation watches: a page with one of them comes back. */
  watched: string[];
  /** When the window has the poll's first request (as planned): the activity moves it to its answer. */
  firstAt: number;
}

/** The quiet-polling input for the next poll, or undefined for one plain long poll. */
export function quietPollingFor(ctx: QuietPollContext): QuietPollingInput | undefined {
  const { tuning } = ctx;
  if (tuning.quietPollMs <= 0 || tuning.idlePollMs > 0 || tuning.pollTimeoutSeconds <= 0) return undefined;
  if (ctx.fenceWanted) return undefined;
  return {
    forMs: tuning.quietPollMs,
    limit: ctx.limits.updates,
    windowMs: ctx.limits.windowMs,
    reserve: tuning.pollReserve,
    marginMs: tuning.pacingMarginMs,
    times: ctx.window.snapshot(),
    firstAt: ctx.firstAt,
    watched: ctx.watched,
    receiptSettleMs: tuning.receiptSettleMs,
    minSettleMs: tuning.minSettleMs,
  };
}

/** Records the empty polls a quiet poll made before the one it returned; returns how many. */
export function recordQuietPolls(window: SlidingWindow, ends: number[] | undefined): number {
  for (const end of ends ?? []) window.record(end);
  return ends?.length ?? 0;
}

/**
 * A quiet poll that failed or was cancelled told nothing of the polls it made: assume the most
 * it may have made within the last window, spaced as its pacing allows, ending `now`. Costs at
 * most a short wait; never a 429.
 */
export function assumeQuietPolls(
  window: SlidingWindow,
  quiet: QuietPollingInput,
  startedAt: number,
  now: number,
): void {
  const cap = Math.max(1, quiet.limit - quiet.reserve);
  const spacing = quiet.windowMs / cap;
  const from = Math.max(startedAt, now - quiet.windowMs);
  for (let at = now, n = 0; at > from && n < cap; at -= spacing, n++) window.record(at);
}
