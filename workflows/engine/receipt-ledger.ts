/**
 * Receipts: who waits for the receipts of which sent message, and the evidence an ambiguous send
 * is settled with. Bounded: routes and sent ids beyond `limit` are forgotten oldest first, and
 * a receipt for an id nobody waits for is dropped and counted. Pure.
 */
import type { Status } from '../../protocol';
import { BoundedMap } from './bounded-map';

export interface LedgerState {
  receiptRoutes: [string, string][];
  sentIds: string[];
  unclaimedSent: { id: string; seenAt: number }[];
  receiptsDropped?: number;
}

/** How many unexplained 'sent' receipts are kept as evidence. */
const UNCLAIMED_KEPT = 20;

export class ReceiptLedger {
  /** Sent message id -> the workflow that gets its receipts. */
  private readonly routes: BoundedMap<string, string>;
  /** Ids of messages this agent is known to have sent: their receipts are evidence of nothing else. */
  private readonly sentIds: BoundedMap<string, true>;
  /** 'sent' receipts for ids no send of ours returned: evidence that an ambiguous attempt was accepted. */
  private unclaimedSent: { id: string; seenAt: number }[];
  /** Receipts for messages nobody waits for (no route, or the route was forgotten). */
  dropped: number;

  constructor(limit: number, carried?: Partial<LedgerState>) {
    this.routes = new BoundedMap(limit, carried?.receiptRoutes ?? []);
    this.sentIds = new BoundedMap(
      limit,
      (carried?.sentIds ?? []).map((id) => [id, true] as const),
    );
    this.unclaimedSent = [...(carried?.unclaimedSent ?? [])];
    this.dropped = carried?.receiptsDropped ?? 0;
  }

  /** A send of ours returned `messageId`; its receipts go to `requester`, if any. */
  sent(messageId: string, requester?: string): void {
    this.sentIds.set(messageId, true);
    if (requester) this.routes.set(messageId, requester);
  }

  /** Whether a send of ours is known to have returned `messageId`. */
  knowsSent(messageId: string): boolean {
    return this.sentIds.has(messageId);
  }

  /** Records a receipt seen at `now`; returns the workflow to forward it to, if any. */
  receive(status: Status, now: number): string | undefined {
    if (
      status.status === 'sent' &&
      !this.sentIds.has(status.id) &&
      !this.unclaimedSent.some((r) => r.id === status.id)
    ) {
      this.unclaimedSent = [...this.unclaimedSent, { id: status.id, seenAt: now }].slice(-UNCLAIMED_KEPT);
    }
    const requester = this.routes.get(status.id);
    if (!requester) {
      this.dropped++;
      return undefined;
    }
    // Nothing follows a read or failed receipt.
    if (status.status === 'read' || status.status === 'failed') this.routes.delete(status.id);
    return requester;
  }

  /**
   * The id of an unexplained 'sent' receipt seen at or after `attemptAt`, if any: since sends are
   * serialised and this agent is the token's only sender, it is the ambiguous attempt's message.
   */
  claimable(attemptAt: number): string | undefined {
    this.unclaimedSent = this.unclaimedSent.filter((r) => !this.sentIds.has(r.id));
    return this.unclaimedSent.find((r) => r.seenAt >= attemptAt)?.id;
  }

  /** Takes `id` as the message an ambiguous attempt sent. */
  claim(id: string): void {
    this.unclaimedSent = this.unclaimedSent.filter((r) => r.id !== id);
    this.sentIds.set(id, true);
  }

  snapshot(): LedgerState {
    return {
      receiptRoutes: [...this.routes.entries()],
      sentIds: [...this.sentIds.keys()],
      unclaimedSent: [...this.unclaimedSent],
      receiptsDropped: this.dropped,
    };
  }
}
