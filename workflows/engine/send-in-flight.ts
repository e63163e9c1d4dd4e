/**
 * The send attempt whose outcome the agent does not have yet, owned by the send loop: from the
 * attempt's start until its outcome is settled (cleared at once by a refusal, which sent
 * nothing), and the reconciliations under way (an ambiguous attempt being decided from the
 * service's receipts). The quote hold and the poll loop only read it. Pure.
 */
import type { Queued } from './outbox';

export class SendInFlight {
  private attempting: Queued | undefined;
  private reconciliations = 0;

  /** The request whose attempt may have reached the service, if any. */
  get current(): Queued | undefined {
    return this.attempting;
  }

  /** Reconciliations waiting for a poll after their fence: polls are not quiet meanwhile. */
  get reconciling(): number {
    return this.reconciliations;
  }

  /** From here the human may see the message before the agent has the result (see quote-hold). */
  attempt(req: Queued): void {
    this.attempting = req;
  }

  /** The attempt is over: refused (nothing the human could have seen), or its outcome settled. */
  settled(): void {
    this.attempting = undefined;
  }

  /** A reconciliation begins; the returned function ends it (once). */
  reconcile(): () => void {
    this.reconciliations++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.reconciliations--;
    };
  }

  /** Whether the send in flight is a question that takes the human's next message or bare words. */
  get questionInFlight(): boolean {
    const sending = this.attempting;
    return (
      sending?.expectReply === true &&
      sending.requester !== undefined &&
      (sending.waitNextToo !== false || (sending.answerWords?.length ?? 0) > 0)
    );
  }
}
