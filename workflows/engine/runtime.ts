/**
 * What the agent's loops share: its parts, each the one owner of a slice of the run's state
 * (the carried parts, the send in flight, the open poll, the lifecycle, the status and
 * counters), its windows and activities. Others change a part only through its methods. Built
 * once per run from the workflow input; `collect` turns it back into the carried state.
 */
import { allHandlersFinished, log, sleep, workflowInfo } from '@temporalio/workflow';
import { countAgentRefusal } from '../author/metrics';
import type { AgentError, AgentRefusal, SendOutcome } from '../../protocol';
import type { MarkReadReport } from '../../activities/mark-reads';
import type { AgentWorkflowInput, CarriedState } from './state-types';
import { agentActivities, type AgentActivities } from './activity-proxies';
import { AgentStatus } from './agent-status';
import { composeCarried } from './carried-state';
import { failureInfo } from './failure';
import { FirstReplyOrder } from './first-reply-order';
import { HandlerChildren } from './handler-children';
import { InboundBudget } from './inbound-budget';
import { Lifecycle } from './lifecycle';
import { OpenPoll } from './open-poll';
import { Outbox } from './outbox';
import { PollCursor } from './poll-cursor';
import { PollDeadline } from './poll-deadline';
import { Receipts } from './receipts';
import { refusalLine } from './refusal';
import { rideReport } from './ride-report';
import { ReceiptLedger } from './receipt-ledger';
import { Router } from './router';
import { SendInFlight } from './send-in-flight';
import { decide } from './send-policy';
import { SignalTracker } from './signal-tracker';
import { SlidingWindow } from '../../core/sliding-window';
import { StatusQueue } from './status-queue';
import { Supervisor } from './supervisor';
import { Tally } from './tally';
import { resolveTuning, type Tuning } from './tuning';

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
