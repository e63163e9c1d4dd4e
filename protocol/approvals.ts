/**
 * The contract of an approval between the client (`requestApproval`, `amsflow approval`) and the
 * approval workflow. Types only.
 */

/** What `requestApproval` starts the approval workflow with. */
export interface ApprovalInput {
  agentKey: string;
  /** The request id: the workflow is `approval:<agentKey>:<id>`; a second request with it is the same request. */
  id: string;
  /** The question's text, shown in the chat. */
  question: string;
  /** How long the human has to answer, in ms. */
  timeoutMs: number;
  /** A reminder in the chat after this long without an answer, in ms (and every as long again, at most 3). */
  remindAfterMs?: number;
  /** Epoch ms when the request was made (the client's clock); `at` is never before it. */
  requestedAt: number;
  /**
   * What exactly is approved, when the asker binds the decision to it (a model's tool call: the
   * tool and its arguments): the decision names it, and the asker acts only on a decision for it.
   */
  subject?: string;
  /**
   * The workflow that asked, when one did (`askApproval`: a model turn asking a tool's approval):
   * a bare "yes" goes to the approval although that workflow waits for the human's next message.
   */
  askedBy?: string;
}

export type ApprovalDecisionKind = 'approved' | 'rejected' | 'expired' | 'cancelled';

/** The approval workflow's result, and what `amsflow approval request --wait --json` prints. */
export interface ApprovalDecision {
  id: string;
  decision: ApprovalDecisionKind;
  /** Who decided: the human's participant id (`user:...`), or 'operator' for a cancel, absent for an expiry. */
  by?: string;
  /** The human's message that decided it (its wamid): one the agent read from the service and routed here. */
  messageId?: string;
  /** The input's `subject`, when it had one. */
  subject?: string;
  /** ISO 8601 with milliseconds: when the human's answer was written (or the expiry, the cancel). */
  at: string;
}

/** What the `amsflow.approval` query answers (for `amsflow approval list`). */
export interface ApprovalView {
  id: string;
  agentKey: string;
  question: string;
  status: 'pending' | ApprovalDecisionKind;
  requestedAt: string;
  expiresAt: string;
  decision?: ApprovalDecision;
}
