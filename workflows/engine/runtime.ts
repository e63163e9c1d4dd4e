/**
 * The agent run's parts and its carried state: the workflow's input and the state it carries
 * across continue-as-new, the parts built from it (`AgentRuntime`, what the loops share), and
 * the sum of their slices with its byte bound.
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
import type { MarkReadReport } from '../../activities/mark-reads';
import { SlidingWindow } from '../../core/sliding-window';
import { type InboundBudgetState, FirstReplyOrder, HandlerChildren, InboundBudget } from './handlers';
import { type CursorState, OpenPoll, PollCursor, PollDeadline } from './poll-rules';
import { type LedgerState, Receipts, ReceiptLedger } from './receipts';
import { type RouterState, Router } from './router';
import { type StatusQueueState, rideReport, StatusQueue } from './statuses';
import { agentActivities, type AgentActivities, resolveTuning, type Tuning } from './tuning';
import { AgentStatus, Tally } from './agent-status';
import { failureInfo, refusalLine, decide } from './request-policy';
import { Lifecycle, SignalTracker, Supervisor } from './lifecycle';
import { Outbox, SendInFlight } from './outbox';

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
 * What the agent's loops share: its parts, each the one owner of a slice of the run's state
 * (the carried parts, the send in flight, the open poll, the lifecycle, the status and
 * counters), its windows and activities. Others change a part only through its methods. Built
 * once per run from the workflow input; `collect` turns it back into the carried state.
 */

export type Windows = Record<'messages' | 'updates' | 'statuses' | 'typing', SlidingWindow>;

export class AgentRuntime {
  readonly tuning: Tuning;
  readonly agentKey: string;
  readonly workflowId = workflowInfo().workflowId;
  /** Prefix of the agent's activity task queues, handed down to handlers. */
  readonly queuePrefix: string;
  readonly acts: AgentActivities;
  readonly cursor: PollCursor;
  readonly router: Router;
  readonly order: FirstReplyOrder;
  readonly outbox: Outbox;
  readonly ledger: ReceiptLedger;
  readonly statuses: StatusQueue;
  readonly windows: Windows;
  readonly tally: Tally;
  readonly status: AgentStatus;
  readonly generation: number;
  /** Owned by the send loop. */
  readonly inFlight = new SendInFlight();
  /** Owned by the poll loop. */
  readonly poll = new OpenPoll();
  /** Owned by the poll loop. */
  readonly deadline: PollDeadline;
  /** Signals to other workflows the agent does not wait for. */
  readonly signals = new SignalTracker();
  /** Handlers of this run that may still complete into it (owned by the dispatcher). */
  readonly children = new HandlerChildren();
  /** How many new messages the agent takes in per window (owned by the dispatcher). */
  readonly inbound: InboundBudget;
  /** Receipts on their way to the conversations that watch them. */
  readonly receipts = new Receipts(this);
  readonly lifecycle: Lifecycle;

  constructor(
    readonly input: AgentWorkflowInput,
    readonly supervisor: Supervisor,
  ) {
    const tuning = (this.tuning = resolveTuning(input.tuning));
    const carried = input.carried;
    const { limits } = input;
    this.agentKey = input.agentKey;
    this.queuePrefix = input.activityQueuePrefix ?? workflowInfo().taskQueue;
    this.acts = agentActivities(this.queuePrefix, tuning);
    this.tally = new Tally(carried);
    this.cursor = new PollCursor(tuning.recentIdsKept, carried, input.recipient);
    this.router = new Router(tuning.maxWaiters, carried);
    this.order = new FirstReplyOrder(tuning.orderingGraceMs, carried?.slots);
    this.outbox = new Outbox(
      {
        recentIdsKept: tuning.recentIdsKept,
        maxQueued: tuning.maxQueuedSends,
        maxQueuedBytes: tuning.maxQueuedSendBytes,
      },
      carried,
      this.tally.lastSeq,
    );
    this.ledger = new ReceiptLedger(tuning.recentIdsKept, carried);
    this.windows = {
      messages: new SlidingWindow(limits.messages, limits.windowMs, carried?.windows.messages),
      updates: new SlidingWindow(limits.updates, limits.windowMs, carried?.windows.updates),
      statuses: new SlidingWindow(limits.statuses, limits.windowMs, carried?.windows.statuses),
      typing: new SlidingWindow(limits.typing, limits.windowMs, carried?.windows.typing),
    };
    this.statuses = new StatusQueue(
      {
        maxPending: tuning.maxPendingMarkRead,
        maxTyping: tuning.maxQueuedTyping,
        giveUpMs: tuning.markReadGiveUpMs,
        graceMs: tuning.markReadGraceMs,
        unknownRetryBaseMs: tuning.backoffBaseMs,
      },
      this.windows.statuses,
      carried,
    );
    this.inbound = new InboundBudget(tuning.inboundBudget, tuning.inboundBudgetWindowMs, carried);
    this.generation = (carried?.generation ?? 0) + 1;
    this.status = new AgentStatus(carried);
    this.deadline = new PollDeadline({ ...tuning, windowMs: limits.windowMs });
    this.lifecycle = new Lifecycle({
      sending: () => this.outbox.sending !== undefined,
      updateCallers: () => this.outbox.hasUpdateCallers,
      signalsInFlight: () => this.signals.size,
      handlersFinished: () => allHandlersFinished(),
    });
  }

  /**
   * Stops the agent for `refusal`, met by a request handed out at `requestedAt` (polling waits,
   * sends fail at once): logged and counted once. Not when the request predates the last resume
   * (`AgentStatus.halt`).
   */
  halt(refusal: AgentRefusal, requestedAt: number): void {
    if (!this.status.halt(refusal, requestedAt)) return;
    this.deadline.stopped();
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

  /**
   * A send request given up whose requester is not told (it did not ask): logged once, counted,
   * and kept for `amsflow state`, so that no failure goes unseen.
   */
  sendFailed(req: { requestId: string; requester?: string }, outcome: SendOutcome): void {
    if (outcome.ok) return;
    const at = new Date(this.now()).toISOString();
    this.status.sendFailed({
      requestId: req.requestId,
      ...(req.requester ? { requester: req.requester } : {}),
      type: outcome.type,
      at,
    });
    log.warn(
      `agent ${this.agentKey}: a send of ${req.requester ?? 'an outside caller'} was given up (${outcome.type}): ${outcome.message}`,
      { agentKey: this.agentKey, requestId: req.requestId, type: outcome.type },
    );
  }

  /**
   * Books what vehicle `vehicle` (a send attempt, or a mark-read request of its own) did with its
   * mark-reads; none reported (it timed out, its worker died, it failed before it could say) sends
   * them again at once. A refusal for good is logged once, here, and dropped.
   */
  markReadsRode(vehicle: string, report: MarkReadReport | undefined): void {
    this.statuses.rode(vehicle, this.now(), report ? rideReport(report, this.tuning) : undefined);
    if (report?.refused.length)
      log.warn(
        `agent ${this.agentKey}: the service refused to mark ${report.refused.length} message(s) read; given up`,
        { agentKey: this.agentKey, messageIds: report.refused },
      );
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

  /** The carried state of the next run: every part's slice. */
  collect(): CarriedState {
    return composeCarried({
      cursor: this.cursor,
      router: this.router,
      ledger: this.ledger,
      statuses: this.statuses,
      outbox: this.outbox,
      order: this.order,
      windows: this.windows,
      generation: this.generation,
      inboundSeq: this.tally.lastSeq,
      counters: this.tally.snapshot(),
      lastError: this.status.lastError,
      refusal: this.status.refusal,
      resumedAt: this.status.resumedAt,
      failedSends: this.status.failedSends,
      inbound: this.inbound,
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
