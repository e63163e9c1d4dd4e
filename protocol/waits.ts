/**
 * Waits for the human's messages (`amsflow.wait`), as a union on `wait`, and what the agent hands
 * a waiting workflow (`amsflow.inbound`, `amsflow.late`). Like send requests, each variant
 * declares the other's fields absent, so that reading them off any request compiles.
 */
import type { InboundMessage } from './wire';

/**
 * Registers a workflow's wait for the human's next message. `waitId` numbers the workflow's waits
 * (1, 2, ...): a message routed to a wait that has ended is handed back and ignored.
 */
export interface WaitStart {
  workflowId: string;
  wait: true;
  waitId?: number;
  /** Also take a message quoting (or reacting to) this message id. */
  questionId?: string;
  /** Take the human's next message too. Default true. */
  nextToo?: boolean;
  /** Also take a bare message that is one of these words (an approval's yes/no). */
  answerWords?: string[];
  /**
   * How "which one?" lists this wait when a bare answer could be for it and another (its
   * question, shortened): with `answerWords`, or for any wait for the next message.
   */
  label?: string;
  /** With `answerWords`: the conversation this wait asks for (see `QuestionSend.askedBy`). */
  askedBy?: string;
  lateText?: never;
}

/** Ends a workflow's wait. */
export interface WaitEnd {
  workflowId: string;
  wait: false;
  waitId?: number;
  /** What the agent answers a late answer once this workflow has ended. */
  lateText?: string;
  questionId?: never;
  nextToo?: never;
  answerWords?: never;
  label?: never;
  askedBy?: never;
}

/** Registers (`wait: true`) or ends (`wait: false`) a workflow's wait. */
export type WaitRequest = WaitStart | WaitEnd;

/** An inbound message routed to a workflow that was waiting for it. */
export interface RoutedMessage {
  message: InboundMessage;
  seq: number;
  /** The wait it was routed to (absent for waits registered without an id). */
  waitId?: number;
  /** The question that wait is for (a message id of the workflow's), when it is one. */
  questionId?: string;
}

/** A human's answer to a question whose wait had timed out, sent to the conversation that asked. */
export interface LateMessage {
  message: InboundMessage;
  seq: number;
  /** The question it quotes or reacts to. */
  questionId: string;
}
