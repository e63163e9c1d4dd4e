/**
 * Test-only workflow interceptor: holds the agent's workflow task that receives the page holding
 * "echo crossing" for a given wall-clock time (more than the waiting handler's 4 s, far less
 * than the workflow task timeout), as a stalled worker would. Meanwhile a handler's wait can time
 * out and its end reach the agent, so the agent routes the message to a wait that has already
 * ended: the crossing the router must hand back.
 *
 * The task's thread blocks on `Atomics.wait` rather than spinning a calibrated loop: a count of
 * iterations measured in one process under one load ran shorter than the wait in another (CI saw
 * the waiter take the message in time), while a blocked thread holds the task for its full time
 * on any machine. It changes no command, so replay agrees.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** Blocks the calling thread for `ms` milliseconds of wall-clock time. */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The interceptors, holding the crossing page's task for `ms` milliseconds. */
export function slowRouting(ms: number): WorkflowInterceptorsFactory {
  return () => ({
    outbound: [
      {
        async scheduleActivity(input, next) {
          const result = await next(input);
          const page = result as { status?: string; messages?: { text?: { body?: string } }[] };
          if (
            input.activityType === 'pollUpdates' &&
            page.status === 'page' &&
            page.messages?.some((m) => m.text?.body === 'echo crossing')
          ) {
            block(ms);
          }
          return result;
        },
      },
    ],
  });
}
