/**
 * Signals, updates and queries between amsflow's workflows and their callers, defined once and
 * named for their kind. The string names are part of recorded histories: never rename one.
 * Each argument's schema is beside it in `message-schemas.ts`: handlers parse before they act.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentStateView } from './agent';
import type { ConversationView } from './conversations';
import type { ConversationOps } from './conversation-ops';
import type { Receipt, SendOutcome, SendRequest, SendResult } from './sends';
import type { LateMessage, RoutedMessage } from './waits';
import type { ApprovalView } from './approvals';
import type { RoutingProof } from './routing';

// The agent workflow: what other workflows and clients send it.
/** Out-of-band send through the outbox; resolves to the outcome. Idempotent by `requestId`. */
export const sendUpdate = defineUpdate<SendOutcome, [SendRequest]>('amsflow.send');
/**
 * A conversation's operations (send requests, waits, release, typing, receipt watches), in the
 * order it asked for them; handed over once per workflow task (see `conversation-ops.ts`).
 */
export const opsSignal = defineSignal<[ConversationOps]>('amsflow.ops');
/** Poll now: the human acted (used when idle polling is off, e.g. by the bot test harness). */
export const wakeSignal = defineSignal('amsflow.wake');
/**
 * Resume an agent whose polling a final refusal stopped (a bad token, a 4xx): it polls again at
 * once (`amsflow agent resume <key>`; a starting worker sends it to each agent it serves).
 */
export const resumeSignal = defineSignal<[{ reason?: string } | null]>('amsflow.resume');
/** The agent's state for operators (`amsflow state`). */
export const stateQuery = defineQuery<AgentStateView>('amsflow.state');
/** Where the agent routed an inbound message, by its id (routing.ts): the proof a conversation asks for. */
export const routedToQuery = defineQuery<RoutingProof | null, [string]>('amsflow.routedTo');

// Conversation workflows: what the agent workflow sends them.
/** The outcome of a send request that asked for it (`notify`). */
export const sendResultSignal = defineSignal<[SendResult]>('amsflow.sendResult');
/** An inbound message routed to a waiting workflow. */
export const inboundSignal = defineSignal<[RoutedMessage]>('amsflow.inbound');
/** A human's answer to a question of the workflow whose wait had already timed out. */
export const lateSignal = defineSignal<[LateMessage]>('amsflow.late');
/** A receipt of a message the workflow sent. */
export const receiptSignal = defineSignal<[Receipt]>('amsflow.receipt');
/**
 * The agent run that started this handler is continuing as new: the handler hands its remaining
 * operations over by signal from now on, not in its result (which would reach a closed run).
 */
export const movingSignal = defineSignal('amsflow.moving');
/** A conversation's state for operators (`amsflow conversations show`). */
export const conversationQuery = defineQuery<ConversationView>('amsflow.conversation');
/** Cancels a conversation from outside: its pending and next waits end as cancelled. */
export const cancelSignal = defineSignal<[{ reason?: string }]>('amsflow.cancel');
/** An approval's state (`amsflow approval list`). Cancel an approval with {@link cancelSignal}. */
export const approvalQuery = defineQuery<ApprovalView>('amsflow.approval');
