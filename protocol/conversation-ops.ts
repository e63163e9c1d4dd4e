/**
 * What a conversation workflow (a handler, or a workflow that called `useAgent`) asks of its
 * agent workflow, as one ordered list of operations: send requests, wait registrations and ends,
 * the release of its first-reply turn, typing indicators and receipt watches. A conversation
 * buffers them and hands them over in one go: in the `amsflow.ops` signal at the end of a
 * workflow task in which it waits for something, or, when a handler ends without ever having
 * waited, in its result (`HandlerResult`), which reaches the agent with the child's completion
 * and costs no signal and no workflow task of its own. A signal from workflow code is delivered
 * once (Temporal de-duplicates its delivery); send requests are de-duplicated by id besides.
 */
import type { SendRequest } from './sends';
import type { WaitRequest } from './waits';

/** One operation, in the order the conversation asked for it. */
export type ConversationOp =
  /** A send request to the outbox (its `requester` is the batch's `from`). */
  | { op: 'send'; request: SendRequest }
  /** Registers or ends a wait for the human (its `workflowId` is the batch's `from`). */
  | { op: 'wait'; request: WaitRequest }
  /** The handler of arrival `seq` has no first reply to send now: later replies may go. */
  | { op: 'release'; seq: number }
  /** Show the typing indicator on an inbound message. */
  | { op: 'typing'; messageId: string }
  /** Forward this sent message's receipts to the conversation (`amsflow.receipt`). */
  | { op: 'receipts'; messageId: string };

/** `amsflow.ops`: a conversation's operations, handed over in one signal. */
export interface ConversationOps {
  /** The conversation's workflow id: every request and wait in `ops` is its own. */
  from: string;
  ops: ConversationOp[];
}

/**
 * What a handler workflow returns: the operations it had not handed over by signal (it ended
 * without waiting for anything). The agent run that started it takes them from the completion.
 */
export interface HandlerResult {
  ops: ConversationOp[];
}
