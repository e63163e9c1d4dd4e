/**
 * The activation guard's clock rule (the guard: activation-guard.ts). A worker that does not hold
 * a run and is handed a query for it rebuilds the run from its history; when that history holds
 * events after the last workflow task that a later task has not yet started (a timer that fired
 * while the worker holding the run was dead), the SDK's core (1.24.0) runs the workflow code on
 * them live *with the clock of that last task* and keeps what the code decided for the next task:
 * a timer started again after it fired, a poll planned seconds in the past.
 *
 * Such an activation is recognisable on its own: it is not a replay, the history grew since the
 * previous activation, and yet the clock did not move (each new workflow task has a later start
 * time). Failing it at once keeps the code from running on that clock at all.
 */
import { GUARD_REFUSALS } from '../../protocol/queries';

/** What the clock rule reads of an activation. */
export interface ActivationStamp {
  /** The history's length the activation was built from. */
  historyLength: number;
  /** The activation's clock (workflow time, ms). */
  now: number;
  replaying: boolean;
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
      `${GUARD_REFUSALS.staleClock} an activation on ${next.historyLength} history events carries the clock ` +
      `of the one on ${last.historyLength} (${new Date(next.now).toISOString()}); failed so that ` +
      `the run is rebuilt from its history with the right times`
    );
  }
}
