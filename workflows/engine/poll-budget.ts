/**
 * Poll budgeting for live chats, pure: receipts must not starve messages. Every reply brings
 * receipts ('sent', 'delivered', 'read'), and each would wake the long poll on its own: four polls
 * an exchange, and a 15-a-minute budget runs out when the human writes every 12 s. So after a
 * page of receipts only, the next poll waits a settle delay, growing with the share of the budget
 * already spent (nothing when the window is fresh, `receiptSettleMs`, one poll's share of the
 * window, when it is full), so that the receipts that follow merge into one page. A settle
 * shorter than `minSettleMs` is skipped: below the server's timer resolution it would cost a
 * second.
 *
 * Every poll after a page also keeps an even cadence with a burst of one (a leaky bucket of two
 * polls draining one per `windowMs / (limit - 1)`, 4.3 s for the spec's 15 a minute): in a calm
 * chat a poll starts at once, in a busy one polls are spread evenly instead of spent in bursts,
 * which would fill the window and then leave a message waiting for the oldest poll to age out
 * (measured: 35 s at p95 in a live chat at the spec's limits). So paced, polls never put more
 * than `limit` in a window, and a receipt page never takes the slot a message will want (a
 * reserve kept for messages instead fought the cadence and held messages back). A poll that
 * found nothing is followed by the next at once (it waited out its long poll).
 */
import type { SlidingWindow } from '../../core/sliding-window';

export type PageKind = 'messages' | 'receipts' | 'nothing';

export interface PollBudgetTuning {
  receiptSettleMs: number;
  minSettleMs: number;
}

/** Polls the even cadence lets go at once beyond the first (see the module comment). */
export const CADENCE_BURST = 1;

/** What a poll brought. */
export function pageKind(result: { status: string; messages?: unknown[]; statuses?: unknown[] }): PageKind {
  if (result.status !== 'page') return 'nothing';
  if ((result.messages?.length ?? 0) > 0) return 'messages';
  return (result.statuses?.length ?? 0) > 0 ? 'receipts' : 'nothing';
}

/** Milliseconds to wait before the next poll after a page of `kind`. */
export function waitAfterPage(
  kind: PageKind,
  window: SlidingWindow,
  now: number,
  tuning: PollBudgetTuning,
): number {
  if (kind === 'nothing') return 0;
  const floor = (ms: number) => (ms >= tuning.minSettleMs ? ms : 0);
  const settle = Math.round(tuning.receiptSettleMs * window.usedShare(now));
  const cadence = window.cadenceDelay(now, CADENCE_BURST);
  // A shorter wait is not worth a timer: the server fires timers about a second late at best
  // (measured on the dev server: every 180 ms settle fired after ~990 ms), so it would only hold
  // back the next message.
  return floor(kind === 'messages' ? cadence : Math.max(settle, cadence));
}
