/**
 * Receipts on their way to the conversations that watch them: each receipt a poll brings is
 * recorded in the ledger (receipt-ledger.ts) and, when a conversation watches its message
 * (`waitForReceipt`), forwarded to it (`amsflow.receipt`); a watch that comes after the receipt
 * gets the status reached at once. A quiet poll open when a watch comes was told to read past that
 * message's receipts: it is ended, and the next poll brings them back.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { receiptSignal } from '../../protocol/messages';
import type { Status } from '../../protocol';
import type { OpenPoll } from './open-poll';
import type { ReceiptLedger } from './receipt-ledger';
import type { SignalTracker } from './signal-tracker';
import type { Tally } from './tally';

/** What receipts need of the run's other parts (read through their methods). */
export interface ReceiptParts {
  tally: Tally;
  ledger: ReceiptLedger;
  poll: OpenPoll;
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
