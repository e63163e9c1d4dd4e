/**
 * The engine's internals for the worker, the client side and tests (`amsflow/internal`): the
 * protocol's names (signals, update, query, ids, queues, failure types) and the agent
 * workflow's input, tuning and state types. Bot authors need none of it.
 */
export * from '../protocol';
export type {
  AgentCounters,
  AgentError,
  AgentStateView,
  AgentTuning,
  RoutedMessage,
  SendRequest,
  WaitRequest,
} from '../protocol';
export type { AgentWorkflowInput, CarriedState } from './engine/runtime';
export { DEFAULT_TUNING } from './engine/tuning';
