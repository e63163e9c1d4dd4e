/**
 * Test-only workflow interceptor: makes the agent's workflow task that receives the page holding
 * "echo crossing" take seconds of CPU (more than the waiting handler's 4 s, far less than the
 * workflow task timeout), as a busy worker would. Meanwhile a handler's wait can time out and its
 * end reach the agent, so the agent routes the message to a wait that has already ended: the
 * crossing the router must hand back. Pure computation, so replay agrees.
 *
 * How many iterations make those seconds depends on the machine and its load, so the test
 * measures {@link spin} first and bundles a module that calls {@link slowRouting} with the count.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export function spin(iterations: number): number {
  // In chunks below 2^31: a counter past a small integer falls to slow double arithmetic.
  const chunk = 100_000_000;
  let x = 0;
  for (let done = 0; done < iterations; done += chunk) {
    const n = Math.min(chunk, iterations - done);
    for (let i = 0; i < n; i++) x += i % 7;
  }
  return x;
}

/** The interceptors, spinning `iterations` on the crossing page. */
export function slowRouting(iterations: number): WorkflowInterceptorsFactory {
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
            spin(iterations);
          }
          return result;
        },
      },
    ],
  });
}

/** Iterations of {@link spin} that take about `ms` here and now. */
export function iterationsFor(ms: number): number {
  const sample = 200_000_000;
  const started = process.hrtime.bigint();
  spin(sample);
  const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
  return Math.round((sample / Math.max(1, tookMs)) * ms);
}
