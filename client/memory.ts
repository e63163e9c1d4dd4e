/**
 * An agent's model memory from outside: reading it (`memory:<agentKey>`; `amsflow conversations
 * show memory:<agentKey>` shows the same through the conversation query) and forgetting it
 * (`amsflow conversations forget`): every turn the model would be shown is dropped, for good.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { agentKeyProblem } from '../protocol/agent';
import { askAgainOnRebuild } from '../protocol/messages';
import { forgetMemoryUpdate, memoryQuery, memoryWorkflowId, type MemoryView } from '../protocol/models';
import { InvalidAgentKeyError } from './agents';

function checkedId(agentKey: string): string {
  const problem = agentKeyProblem(agentKey);
  if (problem) throw new InvalidAgentKeyError(problem);
  return memoryWorkflowId(agentKey);
}

/** The agent's memory; undefined when it has none (no model turn has kept anything yet). */
export async function readMemory(client: Client, agentKey: string): Promise<MemoryView | undefined> {
  try {
    const handle = client.workflow.getHandle(checkedId(agentKey));
    return await askAgainOnRebuild(() => handle.query(memoryQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** Forgets the agent's memory; resolves to how many turns were forgotten (0 when it had none). */
export async function forgetMemory(
  client: Client,
  agentKey: string,
): Promise<{ agentKey: string; forgotten: number }> {
  const handle = client.workflow.getHandle(checkedId(agentKey));
  try {
    const { forgotten } = await handle.executeUpdate(forgetMemoryUpdate);
    return { agentKey, forgotten };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { agentKey, forgotten: 0 };
    throw err;
  }
}
