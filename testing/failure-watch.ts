/**
 * Fails a bot test at once when one of its workflows fails a workflow task (a bug in a handler,
 * a workflow missing from the module) or fails with `InvalidOption` (a wrong option of the
 * workflow API): `say`, `react`, `read` and `expectBot` throw the failure's message instead of
 * `expectBot` timing out with an empty transcript.
 */
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { INVALID_OPTION } from '../protocol/failures';
import type { TaskFailure, TaskFailureLogger } from '../worker/observability/task-failures';

/** What the test sees: which workflow, what failed, where in the author's code. */
export function describeFailure(failure: TaskFailure): string {
  const which = `${failure.workflowId ?? `run ${failure.runId ?? '?'}`}${failure.workflowType ? ` (${failure.workflowType})` : ''}`;
  const at = failure.at ? ` at ${failure.at}` : '';
  return failure.kind === 'task'
    ? `workflow ${which} failed its workflow task: ${failure.message}${at} (Temporal would retry it until the code is fixed)`
    : `workflow ${which} failed: ${failure.message}${at}`;
}

/** The first failure of the harness's workflows, from the harness Runtime's logger. */
export class FailureWatch {
  private first?: TaskFailure;
  private readonly unsubscribe: () => void;

  /** Watches the workflows of `agentKey` (their ids hold it) and those on `taskQueue`. */
  constructor(
    reporter: TaskFailureLogger | undefined,
    private readonly client: Client,
    agentKey: string,
    taskQueue: string,
  ) {
    const belongs = (f: TaskFailure) =>
      f.taskQueue === taskQueue || (f.workflowId?.includes(agentKey) ?? false);
    this.unsubscribe =
      reporter?.onFailure((failure) => {
        if (this.first || !belongs(failure)) return;
        if (failure.kind === 'task') this.first = failure;
        else void this.checkInvalidOption(failure);
      }) ?? (() => undefined);
  }

  /** A workflow that failed: the test fails only for `InvalidOption` (others may be what it tests). */
  private async checkInvalidOption(failure: TaskFailure): Promise<void> {
    if (!failure.workflowId) return;
    try {
      await this.client.workflow.getHandle(failure.workflowId, failure.runId).result();
    } catch (err) {
      const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === INVALID_OPTION) this.first ??= failure;
    }
  }

  /** Throws the first failure seen, if any. */
  check(): void {
    if (this.first) throw new Error(describeFailure(this.first));
  }

  close(): void {
    this.unsubscribe();
  }
}
