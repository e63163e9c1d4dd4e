/**
 * The activation guard (an interceptor module bundled with every workflow) and its two rules: the
 * clock rule and the rebuilt run's query rule.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { GUARD_REFUSALS } from '../../protocol/messages';

/**
 * The activation guard: a workflow interceptor module bundled with every amsflow workflow
 * (`WORKFLOW_INTERCEPTOR_MODULES` in worker/bundling.ts), for a defect of the SDK's core (1.24.0)
 * found by the cluster chaos run. A worker that does not hold a run, handed a query for it,
 * rebuilds the run from its history and runs the events after the last finished workflow task
 * live, keeps what the code decided and sends it with its next task, where a replay decides
 * otherwise. Two rules see it: the clock did not move (`ActivationClock`, below), or a query follows
 * the first live activation of a rebuilt run at once (`RebuiltRunQuery`, below). The guard fails such
 * an activation; the core then fails the query and drops the run, and the next task rebuilds it
 * from the history. This file is wiring.
 */

/** Thrown to fail an activation the guard refuses (the run is evicted and rebuilt). */
export class ActivationGuardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActivationGuardError';
  }
}

/** The interceptor module's factory (one guard per workflow run). */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const clock = new ActivationClock();
  const query = new RebuiltRunQuery();
  return {
    internals: [
      {
        activate(input, next) {
          // Every batch of one activation shares its clock, history and kind: check the first.
          if (input.batchIndex === 0) {
            const { activation } = input;
            const jobs = activation.jobs ?? [];
            const queries = jobs.filter((job) => job.queryWorkflow);
            const replaying = activation.isReplaying ?? false;
            const problem =
              query.check({
                replaying,
                queries: queries.length > 0,
                legacyQuery: queries.some((job) => job.queryWorkflow?.queryId === LEGACY_QUERY_ID),
              }) ??
              (queries.length > 0
                ? undefined
                : clock.check({ historyLength: activation.historyLength ?? 0, now: Date.now(), replaying }));
            if (problem) throw new ActivationGuardError(problem);
          }
          return next(input);
        },
      },
    ],
  };
};

/**
 * The activation guard's clock rule (the guard: above). A worker that does not hold
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

/**
 * The activation guard's query rule (the guard: above). A query the server sends
 * while no workflow task is open goes first to the queue of the worker that holds the run; when
 * that worker was just killed it waits there (the sticky timeout, seconds) and then goes to any
 * worker. By then a signal may have come and a workflow task may have been started by a worker
 * that will never finish it (the killed one, or one cut off). A worker without the run rebuilds
 * it from the history for the query, and the SDK's core (1.24.0) runs the events after the last
 * finished task *live* (with the started task's clock, so the clock rule cannot see it), answers
 * the query, keeps the run in its cache with what the code decided, and sends that with its next
 * real task; a replay runs those events together with the ones that came later and may decide
 * otherwise (the cluster chaos run: a send scheduled before a poll where replays schedule the
 * poll first, and every later task of the agent failed for nondeterminism).
 *
 * What the run sees of it: replayed activations, then one live activation, then at once a query
 * the server sent outside a workflow task (a "legacy" query). Refusing that query evicts the run
 * (the core fails the query and drops the run with what it decided); the next task rebuilds it
 * from the history. The same shape comes from a worker that rebuilt the run for a real task and
 * is asked a query before its next task: refused as well, at the cost of one failed query and
 * one rebuild (the callers in amsflow ask again once: `askAgainOnRebuild` in protocol/messages.ts).
 */

/** The id the core gives a query the server sent outside a workflow task (its LEGACY_QUERY_ID). */
export const LEGACY_QUERY_ID = 'legacy_query';

/** What the query rule reads of an activation. */
export interface ActivationKind {
  replaying: boolean;
  /** Its jobs are queries (the core never mixes queries with other jobs). */
  queries: boolean;
  /** One of those queries came outside a workflow task. */
  legacyQuery: boolean;
}

type Seen = 'nothing' | 'replay' | 'first live after replay' | 'settled';

/** The rule: a legacy query right after the one live activation that followed replays. One per run. */
export class RebuiltRunQuery {
  private seen: Seen = 'nothing';

  /** Why the activation `next` must not run, or undefined when it may. */
  check(next: ActivationKind): string | undefined {
    const before = this.seen;
    this.seen = seenAfter(before, next);
    if (!next.legacyQuery || before !== 'first live after replay') return undefined;
    return (
      `${GUARD_REFUSALS.rebuiltRun} this worker rebuilt the run from its history and ran its newest ` +
      'events live just before this query, which may not be how its next workflow task runs them; ' +
      'refused so that the run is dropped and rebuilt from its history (ask again)'
    );
  }
}

/** What the run has seen once `next` ran, when it had seen `before`. */
function seenAfter(before: Seen, next: ActivationKind): Seen {
  if (next.queries) return 'settled';
  if (next.replaying) return 'replay';
  return before === 'replay' ? 'first live after replay' : 'settled';
}
