/**
 * The Agent Messaging Service simulator: a faithful stand-in for the service (spec sections
 * 1-9), with a control API for tests and a web chat for the human side.
 */

// Starting a simulator
export { startSimulator, type RunningSimulator } from './server';
export type {
  SimulatorOptions,
  SimulatorAgentConfig,
  SimulatorLimits,
  SimulatorReceiptOptions,
  SimulatorLongPollOptions,
} from './options';
export { DEFAULT_AGENT, DEFAULT_LIMITS, newAgentToken } from './options';
export type { ClockOptions } from './clock';
export { SimulatorStateError, type RestoredState } from './state-file';

// Driving it from tests
export {
  SimulatorControl,
  SimulatorControlError,
  type HumanMessage,
  type Conversation,
  type ConversationEntry,
  type Transcript,
  type TranscriptInbound,
  type TranscriptSent,
  type LogEntry,
  type FaultRequest,
  type PendingFaultInfo,
} from './control-client';
export type { RequestTotals } from './state';
export { DEFAULT_UNREAD_GRACE_MS, type UnreadCounts } from './unread-grace';
export type { Endpoint, Fault, FaultKind, ReceiptStatus } from './wire';
export { ENDPOINTS, MESSAGING_PRODUCT, OBJECT } from './wire';
