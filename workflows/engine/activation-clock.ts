/**
 * The stale-clock guard: a workflow interceptor module bundled with every amsflow workflow
 * (worker/bot-bundle.ts), for a defect of the SDK's core (1.24.0) found by the cluster chaos run.
 *
 * A worker that does not hold a run in its cache and is handed a query for it (a "legacy" query
 * task: no workflow task was open) rebuilds the run from its history. When that history holds
 * events after the last workflow task (a timer that fired, an activity that timed out, a signal:
 * the worker that held the run was killed before it could take them), the core runs the workflow
 * code on them, live, with the clock of that last task, and keeps the run in its cache with what
 * that code decided. The next workflow task then sends those decisions: a timer started again
 * after it fired, a poll planned seconds in the past. A replay, which sees the task's real time,
 * decides otherwise, and every later task of that run fails for nondeterminism.
 *
 * Such an activation is recognisable: it is not a replay, the history grew since the previous
 * activation, and yet the clock did not move (each new workflow task has a later start time).
 * The guard fails it; the core then evicts the run (the query fails, its caller may retry) and
 * the next workflow task rebuilds it from the history with the right times. Pure rule in
 * {@link ActivationClock}; the interceptor is wiring.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** What the guard reads of an activation. */
export interface ActivationStamp {
  /** The history's length the activation was built from. */
  historyLength: number;
  /** The activation's clock (workflow time, ms). */
  now: number;
  replaying: boolean;
}

/** Thrown to fail an activation run on a stale clock (the run is evicted and rebuilt). */
export class StaleActivationClockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleActivationClockError';
  }
}

/** The rule: an activation on new history whose clock did not move is stale. One per run. */
export class ActivationClock {
  private last: ActivationStamp | undefined;

  /** Why `next` runs on a stale clock, or undefined when it may run. */
  check(next: ActivationStamp): string | undefined {
    const last = this.last;
    this.last = next;
    if (!last || next.replaying) return undefined;
    if (next.historyLength <= last.historyLength || next.now > last.now) return undefined;
    return (
      `stale workflow clock: an activation on ${next.historyLength} history events carries the clock ` +
      `of the one on ${last.historyLength} (${new Date(next.now).toISOString()}); failed so that ` +
      `the run is rebuilt from its history with the right times`
    );
  }
}

/** The interceptor module's factory (one guard per workflow run). */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const clock = new ActivationClock();
  return {
    internals: [
      {
        activate(input, next) {
          // Every batch of one activation shares its clock and history: check the first.
          if (input.batchIndex === 0) {
            const problem = clock.check({
              historyLength: input.activation.historyLength ?? 0,
              now: Date.now(),
              replaying: input.activation.isReplaying ?? false,
            });
            if (problem) throw new StaleActivationClockError(problem);
          }
          return next(input);
        },
      },
    ],
  };
};
