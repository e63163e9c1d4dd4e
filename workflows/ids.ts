/** Workflow ids amsflow derives. Participant identifiers are never part of them. */

/** The agent workflow's id for an agent key (the operator's name for the agent). */
export function agentWorkflowId(agentKey: string): string {
  return `agent:${agentKey}`;
}

/** The handler workflow's id for an inbound message: a replayed page can never start a second one. */
export function handlerWorkflowId(agentKey: string, messageId: string): string {
  return `agent:${agentKey}:msg:${messageId}`;
}
