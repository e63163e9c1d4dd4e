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
  AgentWorkflowInput,
  CarriedState,
  RoutedMessage,
  SendRequest,
  WaitRequest,
} from './types';
export { DEFAULT_TUNING } from './engine/tuning';
