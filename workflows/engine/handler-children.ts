/**
 * The handlers this agent run started that may still hand their operations over in their result
 * (see protocol/conversation-ops.ts): their result reaches only the run that started them, so
 * this run may not continue as new while one of them might still complete into it. A handler
 * leaves the set when it completes, or when its first `amsflow.ops` signal shows it hands over by
 * signal. At continue-as-new the run tells the rest (`amsflow.moving`) and only then goes: a
 * handler can no longer complete without having seen that signal. Pure.
 */
export class HandlerChildren {
  /** Workflow id -> whether the child has started (its start is initiated until then). */
  private readonly young = new Map<string, { started: boolean }>();

  /** The start of `workflowId` was issued. */
  starting(workflowId: string): void {
    this.young.set(workflowId, { started: false });
  }

  /** `workflowId` has started. */
  started(workflowId: string): void {
    const child = this.young.get(workflowId);
    if (child) child.started = true;
  }

  /** `workflowId` completed, failed, was a duplicate start, or hands over by signal. */
  gone(workflowId: string): void {
    this.young.delete(workflowId);
  }

  /** The started children that may still complete into this run. */
  youngIds(): string[] {
    return [...this.young.entries()].filter(([, c]) => c.started).map(([id]) => id);
  }

  has(workflowId: string): boolean {
    return this.young.has(workflowId);
  }

  get size(): number {
    return this.young.size;
  }
}
