/**
 * The conversation state of one workflow (a handler, or a workflow that called `useAgent`): its
 * place in the first-reply order, its send and wait counters, and what the agent workflow
 * signalled it (outcomes, routed messages, receipts). Module state is isolated per workflow
 * execution by the SDK.
 */
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { NO_AGENT_CONTEXT } from '../protocol/failures';
import { inboundSignal, receiptSignal, sendResultSignal } from '../protocol/messages';
import type { Receipt, RoutedMessage, SendOutcome } from './types';

/** Per-workflow conversation state. Module state is isolated per workflow execution by the SDK. */
export interface Conversation {
  agentWorkflowId: string;
  /** Set in message handlers until their first reply or wait: orders first replies by arrival. */
  seq?: number;
  sends: number;
  /** Waits so far: each wait for the human has its own id, so a late delivery is told apart. */
  waits: number;
  /** The wait in progress; a message routed to any other wait is the agent's to route on. */
  activeWait?: number;
  inbox: RoutedMessage[];
  outcomes: Map<string, SendOutcome>;
  receipts: Map<string, Receipt>;
}

let conversation: Conversation | undefined;

export function current(): Conversation {
  if (!conversation) {
    throw ApplicationFailure.nonRetryable(
      'No agent in this workflow: write handlers with handleMessages(), or call useAgent(agentKey) first',
      NO_AGENT_CONTEXT,
    );
  }
  return conversation;
}

export function open(agentWfId: string, seq?: number): Conversation {
  conversation = {
    agentWorkflowId: agentWfId,
    seq,
    sends: 0,
    waits: 0,
    inbox: [],
    outcomes: new Map(),
    receipts: new Map(),
  };
  const conv = conversation;
  setHandler(sendResultSignal, ({ requestId, outcome }) => {
    conv.outcomes.set(requestId, outcome);
  });
  setHandler(inboundSignal, (routed) => {
    // Routed to a wait that has ended: the agent hands it back and routes it on (it learnt of
    // the end from this workflow's wait signal), so taking it here would deliver it twice.
    if (routed.waitId !== undefined && routed.waitId !== conv.activeWait) return;
    conv.inbox.push(routed);
  });
  setHandler(receiptSignal, (receipt) => {
    const known = conv.receipts.get(receipt.messageId);
    // Receipts can arrive out of order; keep the furthest state.
    if (!known || rank(receipt.status) >= rank(known.status)) conv.receipts.set(receipt.messageId, receipt);
  });
  return conv;
}

const STATUS_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
export function rank(status: string): number {
  return STATUS_RANK[status] ?? 0;
}

/** True once this workflow has a conversation (a handler, or after `useAgent`). */
export function hasConversation(): boolean {
  return conversation !== undefined;
}
