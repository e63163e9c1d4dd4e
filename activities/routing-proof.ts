/**
 * The routing proof's activity (protocol/conversations.ts): asks the agent workflow whether it routed a
 * message to the calling workflow (its `amsflow.routedTo` query), for a conversation that must act
 * on nothing else. A query, not a signal: nothing a client sends can answer it but the agent.
 *
 * Register it on the workflow task queue, next to the schedule activities (it holds a client):
 *
 *   activities: { ...createRoutingActivities(client), ...botActivities }
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { agentWorkflowId } from '../protocol/agent';
import { routedToQuery } from '../protocol/messages';
import type { RoutingActivities, RoutingProof } from '../protocol/conversations';
import { withHeartbeats } from './heartbeats';

export type { RoutingActivities } from '../protocol/conversations';

export function createRoutingActivities(client: Client): RoutingActivities {
  return {
    async amsflowRoutedByAgent(agentKey: string, messageId: string): Promise<RoutingProof | null> {
      const caller = Context.current().info.workflowExecution?.workflowId;
      if (!caller) return null;
      const agent = client.workflow.getHandle(agentWorkflowId(agentKey));
      const proof = await withHeartbeats(agent.query(routedToQuery, messageId));
      // Routed, but to another workflow: no proof for this one.
      return proof?.workflowId === caller ? proof : null;
    },
  };
}
