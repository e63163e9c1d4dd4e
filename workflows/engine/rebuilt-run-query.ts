/**
 * The activation guard's query rule (the guard: activation-guard.ts). A query the server sends
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
 * one rebuild (the callers in amsflow ask again once: `askAgainOnRebuild` in protocol/queries.ts).
 */
import { GUARD_REFUSALS } from '../../protocol/queries';

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
