/**
 * An approval asked from workflow code: the approval workflow started as a child of the asking
 * workflow (`approval:<agentKey>:<id>`), so the question is asked, reminded, expired and answered
 * in the chat exactly as one asked from outside (yes/no, a quote or 👍/👎; `amsflow approval list`
 * and `cancel` see it). The child is started once: a replay or a worker's death never asks twice.
 * A model turn asks this way before a tool that needs approval runs.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { WorkflowIdReusePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { cancelSignal } from '../../protocol/messages';
import { approvalWorkflowId } from '../../protocol/agent';
import type { ApprovalDecision, ApprovalInput } from '../../protocol/approvals';
import { current } from '../author/conversation-state';
import { approvalWorkflow } from './approval';

/** An approval under way: its decision, and a cancel (the human is told "Approval cancelled: …"). */
export interface PendingApproval {
  readonly workflowId: string;
  readonly decision: Promise<ApprovalDecision>;
  /** Cancels it unless decided; resolves with its decision (`cancelled` unless it came first). */
  cancel(reason: string): Promise<ApprovalDecision>;
}

export interface AskApprovalOptions {
  /** The request id, unique per agent (`approval:<agentKey>:<id>`). */
  id: string;
  /** What the human is asked (at most 4000 characters). */
  question: string;
  /** How long the human has to answer. */
  timeout: Duration;
  /** A reminder in the chat after this long (and every as long again, at most 3). Default none. */
  remindAfter?: Duration;
  /** What exactly is approved (a tool call: its tool and arguments); the decision names it. */
  subject?: string;
}

/** Asks the human, as this workflow's agent, to approve; the decision comes with the result. */
export async function askApproval(options: AskApprovalOptions): Promise<PendingApproval> {
  const conv = current();
  const input: ApprovalInput = {
    agentKey: conv.agentKey,
    id: options.id,
    question: options.question,
    timeoutMs: msToNumber(options.timeout),
    ...(options.remindAfter === undefined ? {} : { remindAfterMs: msToNumber(options.remindAfter) }),
    ...(options.subject === undefined ? {} : { subject: options.subject }),
    askedBy: workflowInfo().workflowId,
    requestedAt: Date.now(),
  };
  const workflowId = approvalWorkflowId(conv.agentKey, options.id);
  const handle = await startChild(approvalWorkflow, {
    workflowId,
    args: [input],
    // An id is asked once, ever: a second start would ask the human again.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
  let decided = false;
  const decision = handle.result().finally(() => (decided = true));
  // Awaited later, or never (a turn that ended first); a failure is the caller's when it awaits.
  decision.catch(() => undefined);
  return {
    workflowId,
    decision,
    async cancel(reason: string) {
      // A decided approval has ended: there is nothing left to signal.
      if (!decided) await handle.signal(cancelSignal, { reason });
      return decision;
    },
  };
}
