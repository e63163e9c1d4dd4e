/**
 * Poll budgeting for live chats, pure: receipts must not starve messages. Every reply brings
 * receipts ('sent', 'delivered', 'read'), and each would wake the long poll on its own: four polls
 * an exchange, and a 15-a-minute budget runs out when the human writes every 12 s. So after a
 * page of receipts only, the next poll waits a settle delay, growing with the share of the budget
 * already spent (nothing when the window is fresh, `receiptSettleMs`, one poll's share of the
 * window, when it is full): under pressure polls are spread evenly instead of spent in bursts,
 * and the receipts that follow merge into one page. A receipt-only wake-up never spends the last
 * `pollReserve` polls of the window, which stay for a message. A settle shorter than
 * `minSettleMs` is skipped: below the server's timer resolution it would cost a second. A page with a message, or a poll
 * that found nothing, is followed by the next poll at once.
 */
import type { SlidingWindow } from './sliding-window';

export type PageKind = 'messages' | 'receipts' | 'nothing';

export interface PollBudgetTuning {
  receiptSettleMs: number;
  pollReserve: number;
  minSettleMs: number;
}

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
  if (kind !== 'receipts') return 0;
  const settle = Math.round(tuning.receiptSettleMs * window.usedShare(now));
  // A shorter settle is not worth a timer: the server fires timers about a second late at best
  // (measured on the dev server: every 180 ms settle fired after ~990 ms), so it would only hold
  // back the next message.
  const worth = settle >= tuning.minSettleMs ? settle : 0;
  return Math.max(worth, window.delayKeeping(now, tuning.pollReserve));
}
