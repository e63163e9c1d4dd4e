/**
 * Workflow ids amsflow derives, and the rule for agent keys they are built from. Participant
 * identifiers are opaque (spec 2.1) and never part of an id.
 */

/**
 * An agent key: the operator's name for an agent. It becomes part of workflow ids
 * (`agent:<key>`, `agent:<key>:msg:<id>`), so it is kept to characters that are legal and
 * unambiguous there: no `:` (the separator), no spaces, at most 100 characters.
 */
export const AGENT_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Why `agentKey` is not a legal agent key, or undefined when it is. */
export function agentKeyProblem(agentKey: unknown): string | undefined {
  if (typeof agentKey !== 'string' || agentKey.length === 0) return 'an agent key must be a non-empty string';
  if (!AGENT_KEY_PATTERN.test(agentKey)) {
    return `agent key ${JSON.stringify(agentKey.slice(0, 120))} is not allowed: use 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit`;
  }
  return undefined;
}

/** The agent workflow's id for an agent key. */
export function agentWorkflowId(agentKey: string): string {
  return `agent:${agentKey}`;
}

/** The handler workflow's id for an inbound message: a replayed page can never start a second one. */
export function handlerWorkflowId(agentKey: string, messageId: string): string {
  return `agent:${agentKey}:msg:${messageId}`;
}

/** The workflow of an approval request: one per agent and request id (requests are idempotent by id). */
export function approvalWorkflowId(agentKey: string, requestId: string): string {
  return `approval:${agentKey}:${requestId}`;
}

/** The workflow type of approvals (`approvalWorkflow`, in every bot's bundle). */
export const APPROVAL_WORKFLOW_TYPE = 'approvalWorkflow';
