/**
 * The agent workflow's own input and carried state: what only the engine reads. What crosses a
 * boundary (its start input, state view, send and wait requests) is in protocol/.
 */
import type {
  AgentCounters,
  AgentError,
  AgentRefusal,
  AgentStartInput,
  FailedSend,
} from '../../protocol/agent';
import type { SendOutcome, SendRequestFields } from '../../protocol/sends';
import type { InboundBudgetState } from './inbound-budget';
import type { CursorState } from './poll-cursor';
import type { LedgerState } from './receipt-ledger';
import type { RouterState } from './router';
import type { StatusQueueState } from './status-queue';

/** Input of the agent workflow (`agent:<agentKey>`): the start input, and state carried over. */
export interface AgentWorkflowInput extends AgentStartInput {
  /** State carried over by continue-as-new. */
  carried?: CarriedState;
}

/**
 * Everything the agent workflow carries across continue-as-new: the sum of its parts' slices,
 * each bounded (see `workflows/engine/carried-state.ts`). Older runs carried waiters as plain
 * workflow ids and mark-reads as plain message ids; both forms are still read.
 */
export interface CarriedState
  extends CursorState, RouterState, LedgerState, StatusQueueState, InboundBudgetState {
  inboundSeq: number;
  outcomes: [string, SendOutcome][];
  queue: SendRequestFields[];
  slots: [number, number][];
  windows: Record<'messages' | 'updates' | 'statuses' | 'typing', number[]>;
  lastError?: AgentError;
  /** Set while a final refusal has stopped the agent (see `workflows/engine/refusal.ts`). */
  refusal?: AgentRefusal;
  /** When the agent was last resumed: a refusal of a request handed out before it is stale. */
  resumedAt?: number;
  /** The last send requests given up (see `AgentStatus`). */
  failedSends?: FailedSend[];
  counters: AgentCounters;
  generation: number;
}
