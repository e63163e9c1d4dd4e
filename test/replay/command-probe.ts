/**
 * Test-only workflow interceptor: reports every child workflow start and every signal a workflow
 * issues through the `probe` sink, so that a replay test sees what a workflow task decided (the
 * replayer itself reports only determinism errors). Bundled as a workflow interceptor module.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface ProbeSinks extends Sinks {
  probe: { command(kind: 'startChild' | 'signal', workflowId: string, name: string): void };
}

const { probe } = proxySinks<ProbeSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      startChildWorkflowExecution(input, next) {
        probe.command('startChild', input.options.workflowId ?? '', input.workflowType);
        return next(input);
      },
      signalWorkflow(input, next) {
        const target =
          input.target.type === 'external'
            ? input.target.workflowExecution.workflowId
            : input.target.childWorkflowId;
        probe.command('signal', target ?? '', input.signalName);
        return next(input);
      },
    },
  ],
});
