/**
 * The contract between the agent workflow and the conversation (handler) workflows it starts,
 * and what their query answers operators (`amsflow conversations show`).
 */
import type { MemoryView } from './models';
import type { InboundMessage } from './wire';

/** What a message handler workflow receives. */
export interface HandlerInput {
  agentKey: string;
  agentWorkflowId: string;
  message: InboundMessage;
  /** Arrival number of the message in this agent (1, 2, ...). */
  seq: number;
  /** The bot's configuration (`AMSFLOW_BOT_CONFIG`), as the agent workflow was started with it. */
  config?: unknown;
  /** Prefix of the agent's activity task queues (`<prefix>-media`, ...). */
  activityQueuePrefix: string;
}

/** What `amsflow conversations show` prints: one conversation (handler workflow) as it stands. */
export interface ConversationView {
  workflowId: string;
  agentKey: string;
  /** The author's name for it (`nameConversation('signup')`), if any. */
  name?: string;
  /** The current step: the pending question's `step` option, or its text. */
  step?: string;
  /** True while it waits for the human. */
  waiting: boolean;
  /** Workflow time (ISO 8601) when the current wait began. */
  waitingSince?: string;
  /** Workflow time (ISO 8601) when the conversation began. */
  startedAt: string;
  /** Set once it was cancelled (by a cancel word or from outside). */
  cancelled?: 'human' | 'operator';
  /** An agent's model memory (`memory:<agentKey>`): the turns the model is shown. */
  memory?: MemoryView;
}
