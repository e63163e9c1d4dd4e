/**
 * amsflow: a durable automation engine for agents on the Agent Messaging Service.
 * The public API, grouped by audience. Workflow code imports `amsflow/workflows` instead.
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
export type { AgentWorkflowInput } from './workflows/engine/state-types';
export { agentWorkflowId, handlerWorkflowId, agentKeyProblem, AGENT_KEY_PATTERN } from './protocol/ids';
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
export { approvalWorkflowId } from './protocol/ids';
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

// Running workers
export { runAmsflow, queueCeiling, type RunningAmsflow } from './worker/run';
// A bot's workflow bundle with amsflow's own workflows (what the worker builds; for AMSFLOW_WORKFLOW_BUNDLE)
export { bundleBot, BotModuleError, ENGINE_WORKFLOWS, type BundleBotOptions } from './worker/bot-bundle';
export { loadConfig, ConfigError, type WorkerConfig, type AgentConfig } from './worker/config';
export { startDevServer, freePort, PortInUseError } from './worker/dev-server';
export type { DevServerOptions, RunningDevServer } from './worker/dev-server';
export { createActivities, type Activities, type ClientRegistry } from './activities';
export {
  createScheduleActivities,
  type ScheduleActivities,
  type ScheduleActivityOptions,
} from './activities/schedules';
export {
  createModelActivities,
  type ModelActivities,
  type ModelActivityOptions,
  type WorkerModel,
} from './activities/model-calls';
export { ActivityFailureTypes, SEND_FAILURE_TYPES } from './protocol/failures';

// Encryption at rest (AMSFLOW_ENCRYPTION_KEYS): an application's own Temporal client needs the same
// data converter as the workers, and asks a query again when amsflow's activation guard refused it
// (`new Client({ connection, dataConverter: dataConverterFromEnv(), interceptors: ASK_AGAIN_INTERCEPTORS })`)
export { ASK_AGAIN_INTERCEPTORS } from './protocol/queries';
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
