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
