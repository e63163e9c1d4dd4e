/**
 * The run's lifecycle and the work it owns: every loop and detached work has an owner (the
 * supervisor), signals not waited for are tracked until issued, and `idle()` says when
 * continue-as-new may hand over.
 */

/**
 * Every loop and detached piece of work of the agent run has an owner: a loop that fails fails
 * the workflow task, visibly, instead of rejecting unhandled while the others go on. Built
 * before the parts that start work, so nothing is patched in later. Pure (promises only).
 */
export class Supervisor {
  /** Rejects with the first failure of any owned work. */
  readonly failed: Promise<never>;
  private reject: (err: unknown) => void = () => undefined;

  constructor() {
    this.failed = new Promise<never>((_, reject) => {
      this.reject = reject;
    });
  }

  /** Fails the run with `err`. */
  fail(err: unknown): void {
    this.reject(err);
  }

  /** Owns `work`: its failure fails the run. Returns `work`. */
  own<T>(work: Promise<T>): Promise<T> {
    work.catch((err: unknown) => this.reject(err));
    return work;
  }

  /** `step`, or the run's failure if some owned work fails first. */
  watch<T>(step: Promise<T>): Promise<T> {
    return Promise.race([step, this.failed]);
  }
}

/**
 * Signals to other workflows that the agent does not wait for (outcomes, receipts): each is
 * owned here, so continue-as-new can wait until all were issued, and a closed target (a handler
 * that finished) is not an error.
 */
export class SignalTracker {
  private readonly pending = new Set<Promise<void>>();

  track(signal: Promise<unknown>): void {
    const done = (): void => {
      this.pending.delete(settled);
    };
    const settled: Promise<void> = signal.then(done, done);
    this.pending.add(settled);
  }

  get size(): number {
    return this.pending.size;
  }
}

/**
 * The agent run's lifecycle, one owner for what continue-as-new waits on: whether the run is
 * draining (continue-as-new has begun), whether polling is being ended, and the holds on the
 * hand-over (a page being handed off, a message held until a send settles). Pure: what it needs
 * of other parts (the outbox, the signals in flight, Temporal's handlers) it reads through the
 * readers it is built with, so `idle()` is the one place that says "nothing is in flight".
 */

/** What the lifecycle reads of the parts it does not own. */
export interface IdleReaders {
  /** A send attempt, or a request being sent, is under way (the outbox). */
  sending(): boolean;
  /** An update caller waits for its outcome (the outbox). */
  updateCallers(): boolean;
  /** Signals to other workflows not yet issued (outcomes, receipts). */
  signalsInFlight(): number;
  /** Every signal and update handler of this run has returned (Temporal). */
  handlersFinished(): boolean;
}

export class Lifecycle {
  private drainingNow = false;
  private pollEndingNow = false;
  private holds = 0;
  private wakeRequested = false;

  constructor(private readonly readers: IdleReaders) {}

  /** Continue-as-new has begun: only update callers are served, the status loop stops. */
  get draining(): boolean {
    return this.drainingNow;
  }

  drain(): void {
    this.drainingNow = true;
  }

  /**
   * Continue-as-new is ending the poll loop: the open poll is cancelled and awaited, no new poll
   * starts and the outbox starts nothing new, so that the next run's first poll overlaps nothing.
   */
  get pollEnding(): boolean {
    return this.pollEndingNow;
  }

  endPolling(): void {
    this.pollEndingNow = true;
  }

  /** Work came while polling was ending (an update caller): polling goes on, to drain it first. */
  reopenPolling(): void {
    this.pollEndingNow = false;
  }

  /** Holds the hand-over until the returned release is called (once; later calls do nothing). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  get held(): number {
    return this.holds;
  }

  /** The `wake` signal (or a resume): an idle poll loop polls at once. */
  wake(): void {
    this.wakeRequested = true;
  }

  get wakeWanted(): boolean {
    return this.wakeRequested;
  }

  /** Consumes a wake request. */
  takeWake(): void {
    this.wakeRequested = false;
  }

  /** Nothing in flight: the run may hand over to the next (continue-as-new). */
  idle(): boolean {
    const r = this.readers;
    return (
      !r.sending() &&
      !r.updateCallers() &&
      this.holds === 0 &&
      r.handlersFinished() &&
      r.signalsInFlight() === 0
    );
  }
}
