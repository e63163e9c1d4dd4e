/**
 * Receipts: the ledger of sends and their receipts (who watches what, the status each reached, the
 * evidence for reconciliation; the sender owns it), and the receipts on their way to the
 * conversations that watch them (the dispatcher owns them).
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { Status } from '../../protocol/conversations';
import { receiptSignal } from '../../protocol/messages';
import { BoundedMap } from './bounds';
import type { OpenPoll } from './poll-rules';
import type { SignalTracker } from './lifecycle';
import type { Tally } from './agent-status';

/**
 * Receipts: which conversation watches the receipts of which sent message, the furthest status
 * each recent message of ours reached, and the evidence an ambiguous send is settled with. A
 * receipt nobody watches wakes nobody (it is counted and dropped); a watch that comes after its
 * message's receipt gets that status at once. Bounded: sent ids beyond `limit`, watches beyond
 * `WATCHES_KEPT` and statuses beyond `STATUSES_KEPT` are forgotten oldest first. Pure.
 */

export interface LedgerState {
  /** Watched message id -> the workflow its receipts go to. */
  receiptRoutes: [string, string][];
  sentIds: string[];
  /** The furthest receipt status of our recent messages that had one (message id -> status). */
  statuses?: [string, string][];
  unclaimedSent: { id: string; seenAt: number }[];
  receiptsDropped?: number;
}

/** How many unexplained 'sent' receipts are kept as evidence. */
const UNCLAIMED_KEPT = 20;
/** How many of our messages' statuses are kept for watches that come after their receipt. */
export const STATUSES_KEPT = 200;
/** How many watches are kept (a watch is an explicit `waitForReceipt`: few are open at once). */
export const WATCHES_KEPT = 200;

const RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
const rank = (status: string) => RANK[status] ?? 0;

export class ReceiptLedger {
  /** Watched sent message id -> the workflow that gets its receipts. */
  private readonly routes: BoundedMap<string, string>;
  /** Ids of messages this agent is known to have sent: their receipts are evidence of nothing else. */
  private readonly sentIds: BoundedMap<string, true>;
  private readonly statuses: BoundedMap<string, string>;
  /** 'sent' receipts for ids no send of ours returned: evidence that an ambiguous attempt was accepted. */
  private unclaimedSent: { id: string; seenAt: number }[];
  /** Receipts for messages nobody watches. */
  dropped: number;

  constructor(limit: number, carried?: Partial<LedgerState>) {
    this.routes = new BoundedMap(Math.min(limit, WATCHES_KEPT), carried?.receiptRoutes ?? []);
    this.sentIds = new BoundedMap(
      limit,
      (carried?.sentIds ?? []).map((id) => [id, true] as const),
    );
    this.statuses = new BoundedMap(STATUSES_KEPT, carried?.statuses ?? []);
    this.unclaimedSent = [...(carried?.unclaimedSent ?? [])];
    this.dropped = carried?.receiptsDropped ?? 0;
  }

  /** A send of ours returned `messageId`. */
  sent(messageId: string): void {
    this.sentIds.set(messageId, true);
  }

  /** Whether a send of ours is known to have returned `messageId`. */
  knowsSent(messageId: string): boolean {
    return this.sentIds.has(messageId);
  }

  /**
   * `workflowId` watches the receipts of `messageId`. Returns the status it already reached, if a
   * receipt came before the watch, so that the watcher gets it at once.
   */
  watch(messageId: string, workflowId: string): Status | undefined {
    const known = this.statuses.get(messageId);
    if (known !== 'read' && known !== 'failed') this.routes.set(messageId, workflowId);
    return known === undefined ? undefined : { id: messageId, status: known };
  }

  /** Records a receipt seen at `now`; returns the workflow to forward it to, if any watches it. */
  receive(status: Status, now: number): string | undefined {
    if (
      status.status === 'sent' &&
      !this.sentIds.has(status.id) &&
      !this.unclaimedSent.some((r) => r.id === status.id)
    ) {
      this.unclaimedSent = [...this.unclaimedSent, { id: status.id, seenAt: now }].slice(-UNCLAIMED_KEPT);
    }
    const before = this.statuses.get(status.id);
    if (before === undefined || rank(status.status) > rank(before))
      this.statuses.set(status.id, status.status);
    const watcher = this.routes.get(status.id);
    if (!watcher) {
      this.dropped++;
      return undefined;
    }
    // Nothing follows a read or failed receipt.
    if (status.status === 'read' || status.status === 'failed') this.routes.delete(status.id);
    return watcher;
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

  /** The watched message ids (the poll activity brings their receipts back at once). */
  watched(): string[] {
    return [...this.routes.keys()];
  }

  snapshot(): LedgerState {
    return {
      receiptRoutes: [...this.routes.entries()],
      sentIds: [...this.sentIds.keys()],
      statuses: [...this.statuses.entries()],
      unclaimedSent: [...this.unclaimedSent],
      receiptsDropped: this.dropped,
    };
  }
}

/**
 * Receipts on their way to the conversations that watch them: each receipt a poll brings is
 * recorded in the ledger (`ReceiptLedger`, above) and, when a conversation watches its message
 * (`waitForReceipt`), forwarded to it (`amsflow.receipt`); a watch that comes after the receipt
 * gets the status reached at once. A quiet poll open when a watch comes was told to read past that
 * message's receipts: it is ended, and the next poll brings them back.
 */

/** What receipts need of the run's other parts (read through their methods). */
export interface ReceiptParts {
  tally: Tally;
  /** The ledger (the sender's): records a receipt or a watch. */
  ledger: Pick<ReceiptLedger, 'receive' | 'watch'>;
  /** The open poll (the poller's): a quiet one ends for a new watch. */
  poll: Pick<OpenPoll, 'endQuiet'>;
  signals: SignalTracker;
  now(): number;
}

export class Receipts {
  constructor(private readonly rt: ReceiptParts) {}

  /**
   * A receipt a poll brought (read at `readAt`, when a quiet poll read it past earlier; never
   * later than now): counted, recorded, forwarded to its watcher if any.
   */
  receive(status: Status, readAt?: number): void {
    const { rt } = this;
    rt.tally.receipt();
    const now = rt.now();
    const watcher = rt.ledger.receive(status, readAt === undefined ? now : Math.min(readAt, now));
    if (watcher) this.forward(watcher, status);
  }

  /** `workflowId` watches `messageId`'s receipts. */
  watch(messageId: string, workflowId: string): void {
    const known = this.rt.ledger.watch(messageId, workflowId);
    if (known) this.forward(workflowId, known);
    if (known?.status !== 'read' && known?.status !== 'failed') this.rt.poll.endQuiet();
  }

  private forward(workflowId: string, status: Status): void {
    this.rt.signals.track(
      getExternalWorkflowHandle(workflowId).signal(receiptSignal, {
        messageId: status.id,
        status: status.status,
        timestamp: status.timestamp,
      }),
    );
  }
}
