/**
 * What the agent's loops share: its parts (each owning a slice of the carried state), its
 * windows, activities and counters, and the few flags the wiring sets. Built once per run from
 * the workflow input; `collect` turns it back into the carried state for the next run.
 */
import { log, sleep, workflowInfo } from '@temporalio/workflow';
import { countAgentRefusal } from '../author/metrics';
import type { AgentCounters, AgentError, AgentRefusal } from '../../protocol';
import type { AgentWorkflowInput, CarriedState } from './state-types';
import { agentActivities, type AgentActivities } from './activity-proxies';
import { composeCarried } from './carried-state';
import { failureInfo } from './failure';
import { FirstReplyOrder } from './first-reply-order';
import { Outbox, type Queued } from './outbox';
import { PollCursor } from './poll-cursor';
import { refusalLine } from './refusal';
import { ReceiptLedger } from './receipt-ledger';
import { Router } from './router';
import { decide } from './send-policy';
import { SlidingWindow } from '../../core/sliding-window';
import { StatusQueue } from './status-queue';
import { resolveTuning, type Tuning } from './tuning';

/** Runs recorded before continue-as-new waited for a cancelled poll to end (poll loop and workflow). */
export const PATCH_CAN_WAITS_FOR_POLL = 'amsflow-can-waits-for-poll';

export type Windows = Record<'messages' | 'updates' | 'statuses' | 'typing', SlidingWindow>;

export class AgentRuntime {
  readonly tuning: Tuning;
  readonly agentKey: string;
  readonly workflowId = workflowInfo().workflowId;
  readonly acts: AgentActivities;
  readonly cursor: PollCursor;
  readonly router: Router;
  readonly order: FirstReplyOrder;
  readonly outbox: Outbox;
  readonly ledger: ReceiptLedger;
  readonly statuses: StatusQueue;
  readonly windows: Windows;
  readonly counters: AgentCounters;
  readonly generation: number;
  inboundSeq: number;
  lastError: AgentError | undefined;
  /** Continue-as-new has begun: only update callers are served, the status loop stops. */
  draining = false;
  /**
   * Continue-as-new is ending the poll loop: the open poll is cancelled and awaited, no new poll
   * starts and the outbox starts nothing new, so that the next run's first poll overlaps nothing.
   */
  pollEnding = false;
  /** A page is being handed off; continue-as-new waits for it. */
  processingPage = false;
  /**
   * The request whose attempt may have reached the service and whose outcome the agent does not
   * have yet (from the attempt's start until its outcome is settled; cleared by a refusal).
   */
  attempting: Queued | undefined;
  /** Messages held until the send they may answer has settled (see quote-hold); continue-as-new waits. */
  heldAnswers = 0;
  /** Fails the workflow task visibly: for work the loops start without awaiting it. */
  fail: (err: unknown) => void = (err) => {
    throw err;
  };
  /** Reconciliations waiting for a poll after their fence: polls are not quiet meanwhile. */
  reconciling = 0;
  /** Set while a quiet poll is open: ends it, so that the next poll starts now. */
  endQuietPoll: (() => void) | undefined;
  /** Set by the `wake` signal: with `idlePollMs`, an idle poll loop polls at once. */
  wakeRequested = false;
  /** Set while a final refusal has stopped the agent (polling waits, sends fail); see refusal.ts. */
  refusal: AgentRefusal | undefined;
  /** Workflow time the last poll ended, and by which the next should have ended (health checks). */
  pollEndedAt: number | undefined;
  pollDueBy: number | undefined;

  /**
   * @param legacyWorkerClock Runs recorded before the one-clock rule moved window records to the
   * worker's clock time the activity reported; replaying them must do the same.
   */
  constructor(
    readonly input: AgentWorkflowInput,
    private readonly legacyWorkerClock = false,
  ) {
    const tuning = (this.tuning = resolveTuning(input.tuning));
    const carried = input.carried;
    const { limits } = input;
    this.agentKey = input.agentKey;
    this.acts = agentActivities(input.activityQueuePrefix ?? workflowInfo().taskQueue, tuning);
    this.inboundSeq = carried?.inboundSeq ?? 0;
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
      this.inboundSeq,
    );
    this.ledger = new ReceiptLedger(tuning.recentIdsKept, carried);
    this.statuses = new StatusQueue(
      {
        maxPending: tuning.maxPendingMarkRead,
        maxTyping: tuning.maxQueuedTyping,
        giveUpMs: tuning.markReadGiveUpMs,
      },
      carried,
    );
    this.windows = {
      messages: new SlidingWindow(limits.messages, limits.windowMs, carried?.windows.messages),
      updates: new SlidingWindow(limits.updates, limits.windowMs, carried?.windows.updates),
      statuses: new SlidingWindow(limits.statuses, limits.windowMs, carried?.windows.statuses),
      typing: new SlidingWindow(limits.typing, limits.windowMs, carried?.windows.typing),
    };
    this.counters = carried?.counters ?? { received: 0, sent: 0, failedSends: 0, polls: 0, receipts: 0 };
    this.generation = (carried?.generation ?? 0) + 1;
    this.lastError = carried?.lastError;
    this.refusal = carried?.refusal;
  }

  /** Stops the agent for `refusal` (polling waits, sends fail at once): logged and counted once. */
  halt(refusal: AgentRefusal): void {
    if (this.refusal) return;
    this.refusal = refusal;
    this.pollDueBy = undefined;
    log.warn(refusalLine(this.agentKey, refusal), { agentKey: this.agentKey, status: refusal.status });
    countAgentRefusal(this.agentKey, refusal.where === 'poll' ? 'updates' : 'messages', refusal.httpStatus);
  }

  /** Ends a refusal (`amsflow.resume`): the agent polls again at once. */
  resume(): void {
    if (!this.refusal) return;
    log.info(`agent ${this.agentKey} resumed after ${this.refusal.status}`, { agentKey: this.agentKey });
    this.refusal = undefined;
    this.wakeRequested = true;
  }

  /** Workflow time: the one clock of every window and deadline. */
  now(): number {
    return Date.now();
  }

  /**
   * When a request is over, for its window: workflow time (the one clock), or in legacy runs the
   * worker's start time the activity reported (none: the record stays where it was made).
   */
  requestEnd(reportedStart?: number): number {
    if (!this.legacyWorkerClock) return this.now();
    return reportedStart ?? -Infinity;
  }

  noteError(where: AgentError['where'], err: unknown): void {
    const info = failureInfo(err);
    this.lastError = {
      at: new Date().toISOString(),
      where,
      type: info.type ?? 'Error',
      message: info.message,
    };
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
    return composeCarried(this);
  }
}
