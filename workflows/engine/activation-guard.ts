/**
 * The activation guard: a workflow interceptor module bundled with every amsflow workflow
 * (`WORKFLOW_INTERCEPTOR_MODULES` in worker/bundling.ts), for a defect of the SDK's core (1.24.0)
 * found by the cluster chaos run. A worker that does not hold a run, handed a query for it,
 * rebuilds the run from its history and runs the events after the last finished workflow task
 * live, keeps what the code decided and sends it with its next task, where a replay decides
 * otherwise. Two rules see it: the clock did not move (activation-clock.ts), or a query follows
 * the first live activation of a rebuilt run at once (rebuilt-run-query.ts). The guard fails such
 * an activation; the core then fails the query and drops the run, and the next task rebuilds it
 * from the history. This file is wiring.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { ActivationClock } from './activation-clock';
import { LEGACY_QUERY_ID, RebuiltRunQuery } from './rebuilt-run-query';

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
