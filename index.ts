/**
 * amsflow: a durable automation engine for agents on the Agent Messaging Service.
 * The client API, grouped by audience: what an application or an operator's script imports. It
 * loads no Temporal worker (`import 'amsflow'` never loads `@temporalio/worker`'s native core):
 * running workers is `amsflow/worker`; workflow code imports `amsflow/workflows`; tests
 * `amsflow/testing`.
 */

// The service client (usable on its own, without Temporal)
export * from './messaging';

// Applications and operators: start agents, send out of band, read state
export { ensureAgent, sendThroughOutbox, getAgentState } from './client/agents';
export type { EnsureAgentOptions, OutOfBandSendOptions } from './client/agents';
export type {
  AgentStateView,
  AgentTuning,
  HandlerInput,
  OutboundMessage,
  Receipt,
  SendFailureType,
  SendOutcome,
  SendRequest as OutboxRequest,
} from './protocol';
export type { AgentWorkflowInput } from './workflows/engine/runtime';
export { agentWorkflowId, handlerWorkflowId, agentKeyProblem, AGENT_KEY_PATTERN } from './protocol/agent';
export { InvalidAgentKeyError } from './client/agents';
// Every amsflow error's stable code (docs/OPERATIONS.md, "Error codes")
export { AmsflowError } from './core/amsflow-error';
export { AmsflowErrorCodes, type AmsflowErrorCode } from './core/error-codes';

// Approvals asked from outside, answered in the chat
export { requestApproval, getApprovalHandle, cancelApproval } from './client/approval-handle';
export { listApprovals } from './client/approval-listing';
export { ApprovalRequestError, ApprovalError } from './client/approvals';
export type { ApprovalHandle, ApprovalListing, RequestApprovalOptions } from './client/approvals';
export type { ApprovalDecision, ApprovalInput, ApprovalView } from './protocol/approvals';
export { approvalWorkflowId } from './protocol/agent';
export { parseDuration, formatDuration, DurationFormatError } from './core/durations';

// Conversations seen from outside
export {
  listConversations,
  showConversation,
  cancelConversation,
  ConversationError,
} from './client/conversations';
// An agent's model memory from outside (`amsflow conversations show memory:<agent>|forget`)
export { readMemory, forgetMemory } from './client/memory';
export type { MemoryView, MemoryTurn, ChatMessage } from './protocol/models';
export { textMessage, mediaMessage } from './workflows/author/builders';

export { ActivityFailureTypes, SEND_FAILURE_TYPES } from './protocol/failures';

// Encryption at rest (AMSFLOW_ENCRYPTION_KEYS): an application's own Temporal client needs the same
// data converter as the workers, and asks a query again when amsflow's activation guard refused it
// (`new Client({ connection, dataConverter: dataConverterFromEnv(), interceptors: ASK_AGAIN_INTERCEPTORS })`)
export { ASK_AGAIN_INTERCEPTORS } from './protocol/messages';
export {
  dataConverterFromEnv,
  dataConverterFor,
  EncryptionCodec,
  EncryptionCodecError,
  EncryptionKeysError,
  FAILURE_CONVERTER_PATH,
  PAYLOAD_CONVERTER_PATH,
  startCodecServer,
  type EncryptionKey,
  type CodecServer,
  type CodecServerOptions,
} from './codec';

// The local simulator of the service
export {
  startSimulator,
  SimulatorControl,
  SimulatorControlError,
  type RunningSimulator,
  type SimulatorOptions,
  type SimulatorAgentConfig,
} from './simulator';
