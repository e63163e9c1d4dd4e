/**
 * Signals, updates and queries of amsflow's workflows, defined once and named for their kind.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentStateView, Receipt, RoutedMessage, SendOutcome, SendRequest } from './types';

// Agent workflow: what other workflows and clients send it.
/** Out-of-band send through the outbox; resolves to the outcome. Idempotent by `requestId`. */
export const sendUpdate = defineUpdate<SendOutcome, [SendRequest]>('amsflow.send');
/** A workflow's send request; the outcome comes back as {@link sendResultSignal}. */
export const sendRequestSignal = defineSignal<[SendRequest]>('amsflow.sendRequest');
/** Register or cancel a workflow's wait for the human's next message. */
export const waitSignal = defineSignal<[{ workflowId: string; wait: boolean }]>('amsflow.wait');
/** A handler has no first reply to send (it finished or waits): later replies may go. */
export const releaseSignal = defineSignal<[{ seq: number }]>('amsflow.release');
/** Show the typing indicator on an inbound message. */
export const typingSignal = defineSignal<[{ messageId: string }]>('amsflow.typing');
export const stateQuery = defineQuery<AgentStateView>('amsflow.state');

// Conversation workflows: what the agent workflow sends them.
export const sendResultSignal =
  defineSignal<[{ requestId: string; outcome: SendOutcome }]>('amsflow.sendResult');
export const inboundSignal = defineSignal<[RoutedMessage]>('amsflow.inbound');
export const receiptSignal = defineSignal<[Receipt]>('amsflow.receipt');
