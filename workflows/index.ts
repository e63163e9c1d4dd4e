/**
 * amsflow's workflow API (`amsflow/workflows`): import it from your workflow modules. It is
 * deterministic code only; the worker bundles it with your handlers.
 */
export { agentWorkflow } from './agent-workflow';
export { agentWorkflowId, handlerWorkflowId } from './ids';
export {
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
  MessageHandler,
  SendOptions,
  SentMessage,
  TextOptions,
  WaitOptions,
} from './conversation';
export {
  inboundSignal,
  receiptSignal,
  releaseSignal,
  sendRequestSignal,
  sendResultSignal,
  sendUpdate,
  stateQuery,
  typingSignal,
  waitSignal,
} from './messages';
export { SEND_FAILURE_TYPES } from './types';
export type {
  AgentStateView,
  AgentTuning,
  AgentWorkflowInput,
  HandlerInput,
  InboundMessage,
  OutboundMessage,
  Receipt,
  SendFailureType,
  SendOutcome,
  SendRequest,
} from './types';
