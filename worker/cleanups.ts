/**
 * What a start has to undo, last started first: each step of `runAmsflow` pushes the stop of
 * what it started, so that a failed start (or the end of the run) stops exactly what runs.
 */
export class Cleanups {
  private readonly steps: (() => unknown)[] = [];

  push(step: () => unknown): void {
    this.steps.push(step);
  }

  /** Runs every step, newest first, once; a step that fails does not stop the others. */
  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch {
        // Stopping is best effort: the next step still runs.
      }
    }
  }
}
