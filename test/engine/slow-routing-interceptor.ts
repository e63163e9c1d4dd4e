/**
 * Test-only workflow interceptor: makes the agent's workflow task that receives the page holding
 * "echo crossing" take about ten seconds of CPU (more than the waiting handler's 4 s), as a busy
 * worker would. Meanwhile a handler's
 * wait can time out and its end reach the agent, so the agent routes the message to a wait that
 * has already ended: the crossing the router must hand back. Pure computation, so replay agrees.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

function spin(iterations: number): number {
  let x = 0;
  for (let i = 0; i < iterations; i++) x += i % 7;
  return x;
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
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
          spin(5_000_000_000);
        }
        return result;
      },
    },
  ],
});
