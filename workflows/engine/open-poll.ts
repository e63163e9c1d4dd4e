/**
 * The poll now open, owned by the poll loop: how to cancel it, and whether it is quiet. Others
 * act on it only through its methods: continue-as-new cancels it (its page is read again next
 * run), a reconciliation ends a quiet poll so that the next poll starts after its fence. Pure.
 */
export class OpenPoll {
  private cancelOpen: (() => void) | undefined;
  private quiet = false;

  /** A poll is open. */
  get isOpen(): boolean {
    return this.cancelOpen !== undefined;
  }

  /** The poll loop opened a poll that `cancel` ends. */
  opened(cancel: () => void, quiet: boolean): void {
    this.cancelOpen = cancel;
    this.quiet = quiet;
  }

  /** The poll loop's poll has ended (answered, failed or cancelled). */
  closed(): void {
    this.cancelOpen = undefined;
    this.quiet = false;
  }

  /** Cancels the open poll, if any. */
  cancel(): void {
    this.cancelOpen?.();
  }

  /** Ends the open poll if it is quiet, so that the next poll starts now. */
  endQuiet(): void {
    if (this.quiet) this.cancelOpen?.();
  }
}
