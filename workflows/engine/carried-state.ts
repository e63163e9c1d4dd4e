/**
 * The carried state: what one run of the agent workflow hands the next at continue-as-new, as
 * the sum of its parts' slices. Every slice is bounded (count bounds in `tuning.ts`, the
 * outbox also by bytes, long failure messages shortened), so the whole stays under
 * `CARRIED_STATE_MAX_BYTES`, below Temporal's 2 MB payload limit; a unit test fills every part
 * to its bound with the largest entries and checks it.
 */
import type { AgentCounters, AgentError, AgentRefusal, FailedSend } from '../../protocol';
import type { CarriedState } from './state-types';
import type { FirstReplyOrder } from './first-reply-order';
import type { InboundBudget } from './inbound-budget';
import type { Outbox } from './outbox';
import type { PollCursor } from './poll-cursor';
import type { ReceiptLedger } from './receipt-ledger';
import type { Router } from './router';
import type { SlidingWindow } from '../../core/sliding-window';
import type { StatusQueue } from './status-queue';

/** The carried state's bound with default tuning. */
export const CARRIED_STATE_MAX_BYTES = 1_900_000;

export interface CarriedParts {
  cursor: PollCursor;
  router: Router;
  ledger: ReceiptLedger;
  statuses: StatusQueue;
  outbox: Outbox;
  order: FirstReplyOrder;
  windows: Record<'messages' | 'updates' | 'statuses' | 'typing', SlidingWindow>;
  inboundSeq: number;
  lastError?: AgentError;
  refusal?: AgentRefusal;
  resumedAt?: number;
  failedSends: FailedSend[];
  inbound: InboundBudget;
  counters: AgentCounters;
  generation: number;
}

export function composeCarried(parts: CarriedParts): CarriedState {
  return {
    ...parts.cursor.snapshot(),
    ...parts.router.snapshot(),
    ...parts.ledger.snapshot(),
    ...parts.statuses.snapshot(),
    ...parts.outbox.snapshot(),
    ...parts.inbound.snapshot(),
    inboundSeq: parts.inboundSeq,
    slots: parts.order.snapshot(),
    windows: {
      messages: parts.windows.messages.snapshot(),
      updates: parts.windows.updates.snapshot(),
      statuses: parts.windows.statuses.snapshot(),
      typing: parts.windows.typing.snapshot(),
    },
    lastError: parts.lastError,
    ...(parts.refusal ? { refusal: parts.refusal } : {}),
    ...(parts.resumedAt !== undefined ? { resumedAt: parts.resumedAt } : {}),
    ...(parts.failedSends.length > 0 ? { failedSends: parts.failedSends } : {}),
    counters: parts.counters,
    generation: parts.generation,
  };
}
