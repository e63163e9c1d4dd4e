/**
 * The conversation state of one workflow (a handler, or a workflow that called `useAgent`): its
 * line to the agent (channel.ts), its place in the first-reply order, its send and wait counters,
 * and what the agent workflow signalled it (outcomes, routed messages, receipts). Module state is
 * isolated per workflow execution by the SDK.
 */
import { ApplicationFailure, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type ConversationView,
  type InboundMessage,
  type Receipt,
  type RoutedMessage,
  type SendOutcome,
} from '../../protocol/conversations';
import { NO_AGENT_CONTEXT } from '../../protocol/failures';
import {
  cancelSignal,
  conversationQuery,
  inboundSignal,
  movingSignal,
  receiptSignal,
  sendResultSignal,
} from '../../protocol/messages';
import {
  cancelSchema,
  receiptSchema,
  routedMessageSchema,
  sendResultSchema,
} from '../../protocol/message-schemas';
import { Channel, type ChannelEnd } from './channel';
import { setCheckedSignal } from './checked-handlers';

/** What a side command is told of the wait it interrupts. */
export interface PendingWait {
  /** The text of the question waiting for its answer; undefined when the wait has none (`firstOf`). */
  question?: string;
}

/** A side command: answers `message` while a question waits; the question stays pending. */
export type SideCommand = (message: InboundMessage, pending: PendingWait) => Promise<void>;

/** What a conversation does on its own, set by `handleMessages` or `useAgent` options. */
export interface ConversationSettings {
  /** Words that cancel a pending question. */
  cancelWords: readonly string[];
  /** Side commands answered while a question is pending; the question stays pending. */
  commands: Readonly<Record<string, SideCommand>>;
  /** What the human is told when the conversation is cancelled; false says nothing. */
  cancelledText: ((name: string | undefined) => string) | false;
}

/** Per-workflow conversation state. Module state is isolated per workflow execution by the SDK. */
export interface Conversation {
  agentWorkflowId: string;
  agentKey: string;
  /** The author's name for it (`nameConversation`), shown to operators and in "Cancelled <name>.". */
  name?: string;
  /** What it is doing now (the pending question's step), for operators. */
  step?: string;
  /** Workflow time when the current wait began; undefined while not waiting. */
  waitingSince?: number;
  startedAt: number;
  /** Set by a cancel word or the cancel signal: every pending and later wait ends as cancelled. */
  cancelled?: 'human' | 'operator';
  /** True once the human was told of the cancellation (told once). */
  cancelTold: boolean;
  settings: ConversationSettings;
  /** Its line to the agent: every request, wait, release and typing goes through it. */
  channel: Channel;
  /**
   * The arrival number whose first reply this workflow owes: a handler's own message until its
   * first reply or wait, then each message routed to one of its waits until it answers or waits
   * again. Orders first replies by arrival.
   */
  seq?: number;
  /** The text of the question the pending wait answers (side commands restate it). */
  question?: string;
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

/**
 * Opens this workflow's conversation with the agent `agentWfId`. A handler's (`ends: 'handler'`)
 * starts in `result` hand-over and its wrapper hands the rest over at its end (see channel.ts).
 */
export function open(
  agentWfId: string,
  agentKey: string,
  settings: ConversationSettings,
  seq: number | undefined,
  ends: ChannelEnd,
): Conversation {
  conversation = {
    agentWorkflowId: agentWfId,
    agentKey,
    startedAt: Date.now(),
    cancelTold: false,
    settings,
    channel: new Channel(agentWfId, ends),
    seq,
    sends: 0,
    waits: 0,
    inbox: [],
    outcomes: new Map(),
    receipts: new Map(),
  };
  const conv = conversation;
  setCheckedSignal(sendResultSignal, sendResultSchema, ({ requestId, outcome }) => {
    conv.outcomes.set(requestId, outcome);
  });
  setHandler(movingSignal, () => conv.channel.buffer.moving());
  setCheckedSignal(inboundSignal, routedMessageSchema, (routed) => {
    // Routed to a wait that has ended: the agent hands it back and routes it on (it learnt of
    // the end from this workflow's wait signal), so taking it here would deliver it twice.
    if (routed.waitId !== undefined && routed.waitId !== conv.activeWait) return;
    // The agent holds later messages' first replies until this workflow answers this one.
    conv.seq = routed.seq;
    conv.inbox.push(routed);
  });
  setCheckedSignal(receiptSignal, receiptSchema, (receipt) => {
    const known = conv.receipts.get(receipt.messageId);
    // Receipts can arrive out of order; keep the furthest state.
    if (!known || rank(receipt.status) >= rank(known.status)) conv.receipts.set(receipt.messageId, receipt);
  });
  setCheckedSignal(cancelSignal, cancelSchema, () => {
    conv.cancelled ??= 'operator';
  });
  setHandler(conversationQuery, () => view(conv));
  return conv;
}

function view(conv: Conversation): ConversationView {
  return {
    workflowId: workflowInfo().workflowId,
    agentKey: conv.agentKey,
    ...(conv.name === undefined ? {} : { name: conv.name }),
    ...(conv.step === undefined ? {} : { step: conv.step }),
    waiting: conv.waitingSince !== undefined,
    ...(conv.waitingSince === undefined ? {} : { waitingSince: new Date(conv.waitingSince).toISOString() }),
    startedAt: new Date(conv.startedAt).toISOString(),
    ...(conv.cancelled === undefined ? {} : { cancelled: conv.cancelled }),
  };
}

const STATUS_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
export function rank(status: string): number {
  return STATUS_RANK[status] ?? 0;
}

/** True once this workflow has a conversation (a handler, or after `useAgent`). */
export function hasConversation(): boolean {
  return conversation !== undefined;
}
