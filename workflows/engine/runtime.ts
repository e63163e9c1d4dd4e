/**
 * The agent run's shared context and its carried state: the workflow's input and the state it
 * carries across continue-as-new, what the three owners of that state share (`AgentRuntime`),
 * the slice each owner carries, and the sum of the slices with its byte bound.
 */
import { allHandlersFinished, log, sleep, workflowInfo } from '@temporalio/workflow';
import type {
  AgentCounters,
  AgentError,
  AgentRefusal,
  AgentStartInput,
  FailedSend,
} from '../../protocol/agent';
import type { SendOutcome, SendRequestFields } from '../../protocol/conversations';
import { countAgentRefusal } from '../author/metrics';
import type { SlidingWindow } from '../../core/sliding-window';
import type { InboundBudgetState, FirstReplyOrder, InboundBudget } from './handlers';
import type { CursorState, PollCursor } from './poll-rules';
import type { LedgerState, ReceiptLedger } from './receipts';
import type { RouterState, Router } from './router';
import type { StatusQueueState, StatusQueue } from './statuses';
import { agentActivities, type AgentActivities, resolveTuning, type Tuning } from './tuning';
import { AgentStatus, Tally } from './agent-status';
import { failureInfo, refusalLine, decide } from './request-policy';
import { Lifecycle, SignalTracker, type Supervisor } from './lifecycle';
import type { Outbox } from './outbox';

/**
 * The agent workflow's own input and carried state: what only the engine reads. What crosses a
 * boundary (its start input, state view, send and wait requests) is in protocol/.
 */

/** Input of the agent workflow (`agent:<agentKey>`): the start input, and state carried over. */
export interface AgentWorkflowInput extends AgentStartInput {
  /** State carried over by continue-as-new. */
  carried?: CarriedState;
}

/**
 * Everything the agent workflow carries across continue-as-new: the sum of its parts' slices,
 * each bounded (see `composeCarried`, below). Older runs carried waiters as plain
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
  /** Set while a final refusal has stopped the agent (see `workflows/engine/request-policy.ts`). */
  refusal?: AgentRefusal;
  /** When the agent was last resumed: a refusal of a request handed out before it is stale. */
  resumedAt?: number;
  /** The last send requests given up (see `AgentStatus`). */
  failedSends?: FailedSend[];
  counters: AgentCounters;
  generation: number;
}

/**
 * What the agent's owners share: its input, tuning, activities, counters (`Tally`), status
 * (`AgentStatus`), lifecycle, the signals it does not wait for and the supervisor of its work, and
 * what stopping, resuming, pacing and booking an error mean for all of them. The state of the run
 * is owned by three parts, each the one owner of its slice and of every method that changes it:
 * the poller (poller.ts), the dispatcher (dispatcher.ts) and the sender (sender.ts); they ask each
 * other, never touch each other's parts. Built once per run from the workflow input; `collect`
 * asks each owner for its slice of the carried state.
 */

export type Windows = Record<'messages' | 'updates' | 'statuses' | 'typing', SlidingWindow>;

/** The poller's slice of the carried state: its cursor and the updates window. */
export interface PollerParts {
  cursor: PollCursor;
  windows: Pick<Windows, 'updates'>;
}

/** The dispatcher's slice of the carried state: the router, the first-reply order, the inbound budget. */
export interface DispatcherParts {
  router: Router;
  order: FirstReplyOrder;
  inbound: InboundBudget;
}

/** The sender's slice of the carried state: the outbox, the ledger, the status queue, its windows. */
export interface SenderParts {
  outbox: Outbox;
  ledger: ReceiptLedger;
  statuses: StatusQueue;
  windows: Pick<Windows, 'messages' | 'statuses' | 'typing'>;
}

/** What the shared context asks of the three owners (`AgentRuntime.owners`). */
export interface AgentOwners {
  poller: {
    carriedParts(): PollerParts;
    /** The agent is stopped (a final refusal): no poll is due. */
    stopped(): void;
  };
  dispatcher: { carriedParts(): DispatcherParts };
  sender: {
    carriedParts(): SenderParts;
    readonly sending: boolean;
    readonly hasUpdateCallers: boolean;
  };
}

export class AgentRuntime {
  readonly tuning: Tuning;
  readonly agentKey: string;
  readonly workflowId = workflowInfo().workflowId;
  /** Prefix of the agent's activity task queues, handed down to handlers. */
  readonly queuePrefix: string;
  readonly acts: AgentActivities;
  readonly tally: Tally;
  readonly status: AgentStatus;
  readonly generation: number;
  /** Signals to other workflows the agent does not wait for. */
  readonly signals = new SignalTracker();
  readonly lifecycle: Lifecycle;
  /** The three owners of the run's state (`own`: they are built on this context). */
  private parts: AgentOwners | undefined;

  constructor(
    readonly input: AgentWorkflowInput,
    readonly supervisor: Supervisor,
  ) {
    const tuning = (this.tuning = resolveTuning(input.tuning));
    const carried = input.carried;
    this.agentKey = input.agentKey;
    this.queuePrefix = input.activityQueuePrefix ?? workflowInfo().taskQueue;
    this.acts = agentActivities(this.queuePrefix, tuning);
    this.tally = new Tally(carried);
    this.generation = (carried?.generation ?? 0) + 1;
    this.status = new AgentStatus(carried);
    this.lifecycle = new Lifecycle({
      sending: () => this.owners.sender.sending,
      updateCallers: () => this.owners.sender.hasUpdateCallers,
      signalsInFlight: () => this.signals.size,
      handlersFinished: () => allHandlersFinished(),
    });
  }

  /** The owners of the run's state, built on this context: asked for their slices and their state. */
  own(owners: AgentOwners): void {
    this.parts = owners;
  }

  private get owners(): AgentOwners {
    if (!this.parts) throw new Error("the agent's owners are not wired yet");
    return this.parts;
  }

  /**
   * Stops the agent for `refusal`, met by a request handed out at `requestedAt` (polling waits,
   * sends fail at once): logged and counted once. Not when the request predates the last resume
   * (`AgentStatus.halt`).
   */
  halt(refusal: AgentRefusal, requestedAt: number): void {
    if (!this.status.halt(refusal, requestedAt)) return;
    this.owners.poller.stopped();
    log.warn(refusalLine(this.agentKey, refusal), { agentKey: this.agentKey, status: refusal.status });
    countAgentRefusal(this.agentKey, refusal.where === 'poll' ? 'updates' : 'messages', refusal.httpStatus);
  }

  /** Ends a refusal (`amsflow.resume`): the agent polls again at once. */
  resume(): void {
    const ended = this.status.resume(this.now());
    if (!ended) return;
    log.info(`agent ${this.agentKey} resumed after ${ended.status}`, { agentKey: this.agentKey });
    this.lifecycle.wake();
  }

  /** Workflow time: the one clock of every window and deadline. */
  now(): number {
    return Date.now();
  }

  noteError(where: AgentError['where'], err: unknown): void {
    this.status.noteError(where, failureInfo(err), new Date().toISOString());
  }

  /**
   * Waits until `window` has a slot and `request.notBefore` has passed, then records the request
   * now; the returned function moves the record to when the request was over (workflow time),
   * so a request that waited in a task queue is not counted as older than it is.
   */
  async pace(window: SlidingWindow, request: { notBefore?: number } = {}): Promise<(at: number) => void> {
    for (;;) {
      const decision = decide(window, this.now(), request, this.tuning.pacingMarginMs);
      if (decision.action === 'send') return window.record(this.now());
      await sleep(decision.ms);
    }
  }

  /** The carried state of the next run: every owner's slice, and the shared parts'. */
  collect(): CarriedState {
    const { poller, dispatcher, sender } = this.owners;
    const polls = poller.carriedParts();
    const sends = sender.carriedParts();
    return composeCarried({
      ...polls,
      ...dispatcher.carriedParts(),
      ...sends,
      windows: { ...polls.windows, ...sends.windows },
      generation: this.generation,
      inboundSeq: this.tally.lastSeq,
      counters: this.tally.snapshot(),
      lastError: this.status.lastError,
      refusal: this.status.refusal,
      resumedAt: this.status.resumedAt,
      failedSends: this.status.failedSends,
    });
  }
}

/**
 * The carried state: what one run of the agent workflow hands the next at continue-as-new, as
 * the sum of its parts' slices. Every slice is bounded (count bounds in `tuning.ts`, the
 * outbox also by bytes, long failure messages shortened), so the whole stays under
 * `CARRIED_STATE_MAX_BYTES`, below Temporal's 2 MB payload limit; a unit test fills every part
 * to its bound with the largest entries and checks it.
 */

/** The carried state's bound with default tuning. */
export const CARRIED_STATE_MAX_BYTES = 1_900_000;

export interface CarriedParts {
  cursor: PollCursor;
  router: Router;
  ledger: ReceiptLedger;
  statuses: StatusQueue;
  outbox: Outbox;
  order: FirstReplyOrder;
  windows: Windows;
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
