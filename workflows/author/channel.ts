/**
 * The conversation's line to its agent workflow: it queues operations (ops-buffer.ts) and hands
 * them over, at the end of each workflow task in which the workflow waits, in one `amsflow.ops`
 * signal, or with a handler's result. The flusher is a coroutine blocked on a condition, which
 * Temporal evaluates once the workflow's code has run as far as it can in the task: a batch holds
 * everything asked in the task, and a handler that returns in the same task hands its operations
 * over in its result instead.
 *
 * A handler's end (`handleMessages`) hands over whatever is still pending, so a handler's calls
 * resolve at once. Any other workflow (`useAgent`) has no such end: a signal issued in the task
 * that completes a workflow is never delivered, so there every call resolves only once its batch
 * has arrived, and a workflow that awaits its calls cannot end with one undelivered.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { type ConversationOp, type HandlerResult } from '../../protocol/conversations';
import { AGENT_UNREACHABLE } from '../../protocol/failures';
import { opsSignal } from '../../protocol/messages';
import { OpsBuffer } from './ops-buffer';

/** Who ends the conversation: a handler's wrapper (it hands the rest over), or nobody. */
export type ChannelEnd = 'handler' | 'none';

export class Channel {
  readonly buffer: OpsBuffer;

  constructor(
    private readonly agentWorkflowId: string,
    private readonly ends: ChannelEnd,
  ) {
    this.buffer = new OpsBuffer(ends === 'handler' ? 'result' : 'signal');
    void this.flusher();
  }

  /** Whether this conversation answers the human (a handler), rather than speaking of its own accord. */
  get answers(): boolean {
    return this.ends === 'handler';
  }

  /**
   * Queues `op` for the agent. In a handler it resolves at once (the handler's end hands over what
   * is left); elsewhere once its batch has arrived. Throws `AgentUnreachable` once a batch could
   * not be delivered.
   */
  async hand(op: ConversationOp): Promise<void> {
    const failed = this.buffer.failure;
    if (failed) throw failed;
    const n = this.buffer.add(op);
    if (this.ends === 'handler' || this.buffer.hasArrived(n)) return;
    await condition(() => this.buffer.hasArrived(n));
  }

  /**
   * The handler ends: returns what goes with its result, or (by signal) hands over what is
   * pending and waits until it has arrived. Throws when something could not be delivered.
   */
  async end(): Promise<HandlerResult | undefined> {
    const ops = this.buffer.end();
    if (ops) return ops.length > 0 ? { ops } : undefined;
    await condition(() => this.buffer.idle);
    if (this.buffer.pendingCount > 0) await this.signal(this.buffer.takeBatch());
    const failed = this.buffer.failure;
    if (failed) throw failed;
    return undefined;
  }

  /** The handler fails: a failed workflow has no result, so what is pending goes by signal. */
  async endFailed(): Promise<void> {
    this.buffer.moving();
    await this.end();
  }

  private async flusher(): Promise<void> {
    for (;;) {
      await condition(() => this.buffer.wantsSignal());
      // Asked again once the workflow's code has run as far as it can: the SDK also looks at
      // conditions right after each job of a task, before the code that job resumes has run (a
      // handler that is about to return would be caught half-way, its result hand-over lost).
      await condition(() => this.buffer.wantsSignal());
      await this.signal(this.buffer.takeBatch());
    }
  }

  private async signal(batch: { ops: ConversationOp[]; last: number }): Promise<void> {
    const first = batch.last - batch.ops.length + 1;
    try {
      await getExternalWorkflowHandle(this.agentWorkflowId).signal(opsSignal, {
        from: workflowInfo().workflowId,
        ops: batch.ops,
      });
      this.buffer.delivered(batch.last);
    } catch (err) {
      // The agent workflow is not running (never started, or terminated): nothing asked of it
      // can happen; each waiting caller gets this failure.
      this.buffer.undeliverable(
        first,
        batch.last,
        ApplicationFailure.create({
          type: AGENT_UNREACHABLE,
          message: `The agent workflow ${this.agentWorkflowId} did not take this conversation's requests: ${
            err instanceof Error ? err.message : String(err)
          }`,
          nonRetryable: true,
        }),
      );
    }
  }
}
