/**
 * amsflow's workflow API (`amsflow/workflows`): what a bot author imports in workflow modules.
 * Deterministic code only; the worker bundles it with your handlers. The engine's own signals,
 * queries and ids are in `amsflow/internal` (`workflows/internal.ts`).
 */
export { agentWorkflow } from './agent/workflow';
export {
  EXPIRED_QUESTION_TEXT,
  ask,
  handleMessages,
  isText,
  reply,
  send,
  sendText,
  textOf,
  typing,
  useAgent,
  waitForMessage,
  waitForReceipt,
} from './conversation';
export type {
  AskOptions,
  ConversationOptions,
  HandlerContext,
  LateHandler,
  MessageHandler,
  SendOptions,
  SentMessage,
  TextOptions,
  WaitOptions,
} from './conversation';
export { mediaMessage, textMessage } from './builders';
export type { TextMessageOptions } from './builders';
export { SEND_FAILURE_TYPES } from '../protocol/failures';
export type {
  HandlerInput,
  InboundMessage,
  OutboundMessage,
  Receipt,
  SendFailureType,
  SendOutcome,
} from './types';
