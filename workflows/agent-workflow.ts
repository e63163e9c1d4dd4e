/**
 * The agent workflow: one per agent (`agent:<agentKey>`). It polls with the offset in its own
 * state, routes each inbound message durably before marking it read, runs the agent's outbox
 * (one send at a time, paced, 429/503 waited out with durable timers, ambiguous outcomes never
 * re-sent unless opted in), forwards receipts, and continues as new before its history grows
 * large, carrying everything in flight.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  TimeoutFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createActivities } from '../activities';
import type { PollOutput, SendFailureDetails } from '../activities/types';
import {
  inboundSignal,
  receiptSignal,
  releaseSignal,
  sendRequestSignal,
  sendResultSignal,
  sendUpdate,
  stateQuery,
  typingSignal,
  waitSignal,
} from './messages';
import { handlerWorkflowId } from './ids';
import { SlidingWindow } from './sliding-window';
import type {
  AgentCounters,
  AgentError,
  AgentStateView,
  AgentTuning,
  AgentWorkflowInput,
  CarriedState,
  InboundMessage,
  SendOutcome,
  SendRequest,
  Status,
} from './types';

type Activities = ReturnType<typeof createActivities>;

const DEFAULT_TUNING: Required<AgentTuning> = {
  pollTimeoutSeconds: 25,
  pollLimit: 50,
  pacingMarginMs: 100,
  rateLimitBackoffMs: 5000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  maxSendAttempts: 6,
  orderingGraceMs: 30_000,
  continueAsNewAfterEvents: 4000,
  recentIdsKept: 1000,
  activityHeartbeatTimeoutMs: 10_000,
  reconcileSettleMs: 60_000,
};

interface Queued extends SendRequest {
  /** Where the outcome goes: an update caller waiting in this run, or the requester by signal. */
  via: 'update' | 'signal';
  orderKey: number;
  index: number;
}

/** A Map that forgets its oldest entries beyond `limit`. */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(
    private readonly limit: number,
    entries: [K, V][] = [],
  ) {
    super(entries);
  }
  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key);
    super.set(key, value);
    while (this.size > this.limit) this.delete(this.keys().next().value as K);
    return this;
  }
}

export async function agentWorkflow(input: AgentWorkflowInput): Promise<void> {
  const tuning = { ...DEFAULT_TUNING, ...input.tuning };
  const { agentKey, limits } = input;
  const carried = input.carried;
  const info = workflowInfo();
  const queuePrefix = input.activityQueuePrefix ?? info.taskQueue;
  const handlerType = input.handlerWorkflowType ?? 'onMessage';
  const handlerTaskQueue = input.handlerTaskQueue ?? info.taskQueue;

  const pollActivities = proxyActivities<Activities>({
    taskQueue: `${queuePrefix}-updates`,
    startToCloseTimeout: `${tuning.pollTimeoutSeconds + 40}s`,
    heartbeatTimeout: tuning.activityHeartbeatTimeoutMs,
    retry: {
      initialInterval: '1s',
      maximumInterval: '30s',
      maximumAttempts: 5,
      nonRetryableErrorTypes: ['Unauthorized', 'InvalidRequest', 'UnknownAgent'],
    },
  });
  // Exactly one HTTP attempt: a retry by Temporal after a worker crash would re-send a message
  // that may already have been delivered. The outbox decides from the classified outcome.
  const sendActivities = proxyActivities<Activities>({
    taskQueue: `${queuePrefix}-messages`,
    startToCloseTimeout: '90s',
    heartbeatTimeout: tuning.activityHeartbeatTimeoutMs,
    retry: { maximumAttempts: 1 },
  });
  const statusActivities = proxyActivities<Activities>({
    taskQueue: `${queuePrefix}-statuses`,
    startToCloseTimeout: '45s',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['Unauthorized', 'InvalidRequest', 'UnknownAgent'] },
  });

  // ---- State (all of it survives crashes through history, and continue-as-new through `carried`)
  let offset = carried?.offset ?? 0;
  let firstPollDone = carried?.firstPollDone ?? false;
  let recipient = carried?.recipient ?? input.recipient;
  let inboundSeq = carried?.inboundSeq ?? 0;
  const recentInbound = new BoundedMap<string, true>(
    tuning.recentIdsKept,
    (carried?.recentInbound ?? []).map((id) => [id, true]),
  );
  const outcomes = new BoundedMap<string, SendOutcome>(tuning.recentIdsKept, carried?.outcomes);
  let queueIndex = 0;
  const queue: Queued[] = (carried?.queue ?? []).map((req) => ({
    ...req,
    via: 'signal',
    orderKey: req.handlerSeq ?? inboundSeq + 0.5,
    index: queueIndex++,
  }));
  let sending: Queued | undefined;
  const replyWaiters = new BoundedMap<string, string>(tuning.recentIdsKept, carried?.replyWaiters);
  let nextWaiters: string[] = [...(carried?.nextWaiters ?? [])];
  const receiptRoutes = new BoundedMap<string, string>(tuning.recentIdsKept, carried?.receiptRoutes);
  /** Handlers that have not sent their first reply yet: arrival number -> start time. */
  const slots = new Map<number, number>(carried?.slots);
  const windows = {
    messages: new SlidingWindow(limits.messages, limits.windowMs, carried?.windows.messages),
    updates: new SlidingWindow(limits.updates, limits.windowMs, carried?.windows.updates),
    statuses: new SlidingWindow(limits.statuses, limits.windowMs, carried?.windows.statuses),
    typing: new SlidingWindow(limits.typing, limits.windowMs, carried?.windows.typing),
  };
  const markReadQueue: string[] = [...(carried?.markRead ?? [])];
  /** Ids of messages this agent is known to have sent: their receipts are not evidence of anything else. */
  const sentIds = new BoundedMap<string, true>(
    tuning.recentIdsKept,
    (carried?.sentIds ?? []).map((id) => [id, true]),
  );
  /** 'sent' receipts for ids nobody claimed: evidence that an ambiguous attempt was accepted. */
  let unclaimedSent: { id: string; seenAt: number }[] = [...(carried?.unclaimedSent ?? [])];
  /** Workflow time at which the last completed poll started (fences for reconciliation). */
  let lastPollStartedAt = carried?.lastPollStartedAt ?? 0;
  const typingQueue: string[] = [];
  let lastError: AgentError | undefined = carried?.lastError;
  const counters: AgentCounters = carried?.counters ?? {
    received: 0,
    sent: 0,
    failedSends: 0,
    polls: 0,
    receipts: 0,
  };
  const generation = (carried?.generation ?? 0) + 1;
  let draining = false;
  let processingPage = false;
  let pollScope: CancellationScope | undefined;
  const pendingSignals = new Set<Promise<void>>();

  const now = () => Date.now();
  const noteError = (where: AgentError['where'], err: unknown) => {
    const failure = err instanceof ActivityFailure && err.cause ? err.cause : err;
    lastError = {
      at: new Date().toISOString(),
      where,
      type:
        failure instanceof ApplicationFailure
          ? (failure.type ?? 'Error')
          : ((failure as Error)?.name ?? 'Error'),
      message: failure instanceof Error ? failure.message : String(failure),
    };
  };

  /** Runs a signal to another workflow without blocking; a closed target is not an error here. */
  const track = (promise: Promise<unknown>): void => {
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    pendingSignals.add(settled);
    void settled.then(() => pendingSignals.delete(settled));
  };

  /** Waits until `window` has a free slot, then records the request start. */
  const pace = async (window: SlidingWindow): Promise<(actualStart: number) => void> => {
    for (;;) {
      const delay = window.delay(now());
      if (delay <= 0) return window.record(now());
      await sleep(delay + tuning.pacingMarginMs);
    }
  };

  // ---- Outbox ----------------------------------------------------------------------------------
  const enqueue = (req: SendRequest, via: Queued['via']): void => {
    if (outcomes.has(req.requestId) || queue.some((q) => q.requestId === req.requestId)) return;
    if (sending?.requestId === req.requestId) return;
    queue.push({ ...req, via, orderKey: req.handlerSeq ?? inboundSeq + 0.5, index: queueIndex++ });
    if (req.handlerSeq !== undefined) slots.delete(req.handlerSeq);
  };

  const releaseExpiredSlots = (): void => {
    for (const [seq, startedAt] of slots) if (startedAt + tuning.orderingGraceMs <= now()) slots.delete(seq);
  };

  /** The next request to send: lowest order key among those no earlier handler is still ahead of. */
  const pickNext = (): Queued | undefined => {
    releaseExpiredSlots();
    let best: Queued | undefined;
    for (const req of queue) {
      // While draining for continue-as-new, only update callers (who wait in this run) are served.
      if (draining && req.via !== 'update') continue;
      if (req.handlerSeq !== undefined && [...slots.keys()].some((seq) => seq < req.handlerSeq!)) continue;
      if (
        !best ||
        req.orderKey < best.orderKey ||
        (req.orderKey === best.orderKey && req.index < best.index)
      ) {
        best = req;
      }
    }
    return best;
  };

  const nextSlotExpiry = (): number | undefined => {
    let earliest: number | undefined;
    for (const startedAt of slots.values()) {
      const at = startedAt + tuning.orderingGraceMs - now();
      if (earliest === undefined || at < earliest) earliest = at;
    }
    return earliest === undefined ? undefined : Math.max(1, earliest);
  };

  const finish = (req: Queued, outcome: SendOutcome): void => {
    outcomes.set(req.requestId, outcome);
    if (outcome.ok) {
      counters.sent++;
      if (req.requester) {
        receiptRoutes.set(outcome.messageId, req.requester);
        if (req.expectReply) {
          replyWaiters.set(outcome.messageId, req.requester);
          if (!nextWaiters.includes(req.requester)) nextWaiters.push(req.requester);
        }
      }
    } else {
      counters.failedSends++;
    }
    if (req.via === 'signal' && req.requester) {
      track(
        getExternalWorkflowHandle(req.requester).signal(sendResultSignal, {
          requestId: req.requestId,
          outcome,
        }),
      );
    }
  };

  const backoff = (attempt: number): number => {
    const ceiling = Math.min(tuning.backoffMaxMs, tuning.backoffBaseMs * 2 ** attempt);
    // Workflow Math.random is seeded per run: deterministic on replay.
    return Math.max(tuning.backoffBaseMs, Math.round(ceiling * (0.5 + Math.random() * 0.5)));
  };

  /**
   * Decides an ambiguous attempt from the service's own receipts. Sends are serialised and this
   * workflow is the token's only sender, so a 'sent' receipt for an id no send of ours returned,
   * seen after the attempt began, can only be that attempt's message. If none has appeared once
   * `reconcileSettleMs` have passed and a later poll has read the sequence, the attempt was not
   * accepted. Returns the accepted message id, or undefined.
   */
  const reconcile = async (attemptAt: number): Promise<string | undefined> => {
    const claim = (): string | undefined => {
      unclaimedSent = unclaimedSent.filter((r) => !sentIds.has(r.id));
      return unclaimedSent.find((r) => r.seenAt >= attemptAt)?.id;
    };
    const fence = now() + tuning.reconcileSettleMs;
    await condition(() => claim() !== undefined || lastPollStartedAt >= fence);
    const accepted = claim();
    if (accepted) {
      unclaimedSent = unclaimedSent.filter((r) => r.id !== accepted);
      sentIds.set(accepted, true);
    }
    return accepted;
  };

  const sendOne = async (req: Queued): Promise<SendOutcome> => {
    let attempts = 0;
    let rateLimitedWithoutHint = 0;
    let transient = 0;
    for (;;) {
      if (!recipient) {
        await condition(() => recipient !== undefined || firstPollDone);
        if (!recipient) {
          return {
            ok: false,
            type: 'NoRecipient',
            message:
              'No recipient is known yet: the human has not written to this agent, and discovery found none.',
            attempts,
          };
        }
      }
      const confirmStart = await pace(windows.messages);
      const attemptAt = now();
      attempts++;
      try {
        const result = await sendActivities.sendMessage({
          agentKey,
          to: recipient,
          message: req.message,
          attemptId: `${req.requestId}#${attempts}`,
        });
        confirmStart(result.startedAt);
        if (result.recipient) recipient = result.recipient;
        sentIds.set(result.messageId, true);
        return { ok: true, messageId: result.messageId, attempts };
      } catch (err) {
        noteError('send', err);
        const cause = err instanceof ActivityFailure ? err.cause : err;
        const type = cause instanceof ApplicationFailure ? cause.type : undefined;
        const details = (cause instanceof ApplicationFailure ? cause.details?.[0] : undefined) as
          SendFailureDetails | undefined;
        if (details?.startedAt) confirmStart(details.startedAt);
        const message = cause instanceof Error ? cause.message : String(cause);
        if (type === 'SendInvalid') return { ok: false, type: 'SendInvalid', message, attempts };
        if (type === 'SendUnauthorized') return { ok: false, type: 'SendUnauthorized', message, attempts };
        if (type === 'SendRejected') {
          if (attempts >= tuning.maxSendAttempts)
            return { ok: false, type: 'SendRejected', message, attempts };
          let wait: number;
          if (details?.retryAfterMs !== undefined) wait = details.retryAfterMs;
          else if (details?.status === 429) wait = tuning.rateLimitBackoffMs * 2 ** rateLimitedWithoutHint++;
          else wait = backoff(transient++);
          await sleep(Math.max(1, wait));
          continue;
        }
        // Anything else (500, dropped connection, read timeout, activity timeout after a worker
        // died, an unexpected failure): the message may have been sent.
        const reason =
          cause instanceof TimeoutFailure ? 'the send activity timed out (worker lost mid-send?)' : message;
        if (req.retryAmbiguous && attempts < tuning.maxSendAttempts) {
          await sleep(backoff(transient++));
          continue;
        }
        if (req.reconcileAmbiguous) {
          const accepted = await reconcile(attemptAt);
          if (accepted) return { ok: true, messageId: accepted, attempts };
          // Proven not accepted: sending it now cannot make a duplicate.
          if (attempts < tuning.maxSendAttempts) continue;
        }
        return {
          ok: false,
          type: 'AmbiguousSend',
          message: `It is unknown whether the message was sent (${reason}); it was not sent again.`,
          attempts,
        };
      }
    }
  };

  const outboxBusyWithUpdates = () => queue.some((q) => q.via === 'update');

  const outboxLoop = async (): Promise<void> => {
    for (;;) {
      if (!(await condition(() => pickNext() !== undefined, nextSlotExpiry() ?? tuning.orderingGraceMs)))
        continue;
      // Re-evaluated: another coroutine (draining for continue-as-new) may have run since.
      const req = pickNext();
      if (!req) continue;
      queue.splice(queue.indexOf(req), 1);
      sending = req;
      const outcome = await sendOne(req);
      sending = undefined;
      finish(req, outcome);
    }
  };

  // ---- Statuses: mark read and typing, each within its own budget -----------------------------
  const statusLoop = async (): Promise<void> => {
    for (;;) {
      await condition(() => draining || markReadQueue.length > 0 || typingQueue.length > 0);
      if (draining) return;
      if (typingQueue.length > 0) {
        const messageId = typingQueue.shift()!;
        // A late typing indicator is worse than none: skip it when the budget is spent.
        if (windows.typing.delay(now()) > 0) continue;
        const confirm = windows.typing.record(now());
        try {
          confirm((await statusActivities.sendTyping({ agentKey, messageId })).startedAt);
        } catch (err) {
          noteError('status', err);
        }
        continue;
      }
      const messageId = markReadQueue[0];
      const confirm = await pace(windows.statuses);
      try {
        confirm((await statusActivities.markRead({ agentKey, messageId })).startedAt);
      } catch (err) {
        noteError('status', err);
      }
      markReadQueue.shift();
    }
  };

  // ---- Poll and route ---------------------------------------------------------------------------
  const signalWaiter = async (workflowId: string, message: InboundMessage, seq: number): Promise<boolean> => {
    try {
      await getExternalWorkflowHandle(workflowId).signal(inboundSignal, { message, seq });
      return true;
    } catch (err) {
      // The waiter has closed: forget it and route elsewhere.
      noteError('route', err);
      nextWaiters = nextWaiters.filter((id) => id !== workflowId);
      for (const [key, id] of replyWaiters) if (id === workflowId) replyWaiters.delete(key);
      return false;
    }
  };

  const route = async (message: InboundMessage, seq: number): Promise<void> => {
    const quoted =
      message.context?.id ?? (message.type === 'reaction' ? message.reaction?.message_id : undefined);
    const replyWaiter = quoted ? replyWaiters.get(quoted) : undefined;
    if (replyWaiter) {
      replyWaiters.delete(quoted!);
      nextWaiters = nextWaiters.filter((id) => id !== replyWaiter);
      if (await signalWaiter(replyWaiter, message, seq)) return;
    }
    while (nextWaiters.length > 0 && message.type !== 'reaction') {
      const waiter = nextWaiters.shift()!;
      for (const [key, id] of replyWaiters) if (id === waiter) replyWaiters.delete(key);
      if (await signalWaiter(waiter, message, seq)) return;
    }
    // Holds later handlers' first replies back until this one has sent its own (see pickNext).
    slots.set(seq, now());
    try {
      await startChild(handlerType, {
        workflowId: handlerWorkflowId(agentKey, message.id),
        taskQueue: handlerTaskQueue,
        args: [{ agentKey, agentWorkflowId: info.workflowId, message, seq }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      slots.delete(seq);
      // Started before (a replayed page, a run before continue-as-new): already handled.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };

  const deliverReceipt = (status: Status): void => {
    counters.receipts++;
    if (
      status.status === 'sent' &&
      !sentIds.has(status.id) &&
      !unclaimedSent.some((r) => r.id === status.id)
    ) {
      unclaimedSent = [...unclaimedSent, { id: status.id, seenAt: now() }].slice(-20);
    }
    const requester = receiptRoutes.get(status.id);
    if (!requester) return;
    if (status.status === 'read' || status.status === 'failed') receiptRoutes.delete(status.id);
    track(
      getExternalWorkflowHandle(requester).signal(receiptSignal, {
        messageId: status.id,
        status: status.status,
        timestamp: status.timestamp,
      }),
    );
  };

  const processPage = async (page: Extract<PollOutput, { status: 'page' }>): Promise<void> => {
    processingPage = true;
    const seen = page.contacts.at(-1)?.wa_id ?? page.messages.at(-1)?.from;
    if (seen) recipient = seen;
    // Every hand-off of the page is issued at once (one workflow task starts all the children);
    // routing decisions are still taken in arrival order, before the first await of each.
    const fresh = page.messages.filter((message) => !recentInbound.has(message.id));
    await Promise.all(fresh.map((message) => route(message, ++inboundSeq)));
    for (const message of fresh) {
      // Only now, with the hand-off recorded in history, may the message leave the buffer.
      recentInbound.set(message.id, true);
      counters.received++;
      markReadQueue.push(message.id);
    }
    for (const status of page.statuses) deliverReceipt(status);
    offset = page.nextOffset;
    processingPage = false;
  };

  const pollLoop = async (): Promise<void> => {
    let failures = 0;
    // Runs for the whole run, through draining too (a send being reconciled needs polls); the
    // open poll is cancelled at continue-as-new and its page read again by the next run.
    for (;;) {
      const confirmStart = await pace(windows.updates);
      const pollStartedAt = now();
      let result: PollOutput;
      try {
        pollScope = new CancellationScope();
        result = await pollScope.run(() =>
          pollActivities.pollUpdates({
            agentKey,
            offset,
            limit: tuning.pollLimit,
            // The first poll of a new agent answers at once, with the creator in `contacts`.
            timeoutSeconds: firstPollDone ? tuning.pollTimeoutSeconds : 0,
          }),
        );
      } catch (err) {
        if (draining && isCancellation(err)) return;
        noteError('poll', err);
        await sleep(Math.min(60_000, 1000 * 2 ** Math.min(failures++, 6)));
        continue;
      } finally {
        pollScope = undefined;
      }
      failures = 0;
      counters.polls++;
      confirmStart(result.startedAt);
      if (result.status === 'page') await processPage(result);
      lastPollStartedAt = pollStartedAt;
      // 204: same offset. 409: a poll that outlived its activity, or another program on the
      // token; harmless, poll again from the same offset.
      firstPollDone = true;
    }
  };

  // ---- Handlers ---------------------------------------------------------------------------------
  setHandler(
    sendUpdate,
    async (req) => {
      enqueue(req, 'update');
      await condition(() => outcomes.has(req.requestId));
      return outcomes.get(req.requestId)!;
    },
    { validator: validateSendRequest },
  );
  setHandler(sendRequestSignal, (req) => {
    const known = outcomes.get(req.requestId);
    if (known && req.requester) {
      track(
        getExternalWorkflowHandle(req.requester).signal(sendResultSignal, {
          requestId: req.requestId,
          outcome: known,
        }),
      );
      return;
    }
    if (isValidSendRequest(req)) enqueue(req, 'signal');
  });
  setHandler(waitSignal, ({ workflowId, wait }) => {
    nextWaiters = nextWaiters.filter((id) => id !== workflowId);
    for (const [key, id] of replyWaiters) if (id === workflowId) replyWaiters.delete(key);
    if (wait) nextWaiters.push(workflowId);
  });
  setHandler(releaseSignal, ({ seq }) => {
    slots.delete(seq);
  });
  setHandler(typingSignal, ({ messageId }) => {
    if (!typingQueue.includes(messageId)) typingQueue.push(messageId);
  });
  setHandler(stateQuery, (): AgentStateView => ({
    agentKey,
    generation,
    offset,
    recipientKnown: recipient !== undefined,
    queueLength: queue.length,
    sending: sending?.requestId,
    waiters: { reply: replyWaiters.size, next: nextWaiters.length },
    pendingMarkRead: markReadQueue.length,
    historyLength: workflowInfo().historyLength,
    draining,
    lastError,
    counters,
  }));

  // ---- Run until the history is long, then continue as new with everything in flight ----------
  // The outbox and the poll loop run for the whole run; continue-as-new leaves them behind idle.
  void outboxLoop();
  void pollLoop();
  const statusDone = statusLoop();
  await condition(
    () =>
      workflowInfo().continueAsNewSuggested ||
      workflowInfo().historyLength >= tuning.continueAsNewAfterEvents,
  );
  draining = true;
  await statusDone;
  await condition(
    () =>
      !sending &&
      !outboxBusyWithUpdates() &&
      !processingPage &&
      allHandlersFinished() &&
      pendingSignals.size === 0,
  );
  pollScope?.cancel();
  const state: CarriedState = {
    offset,
    firstPollDone,
    recipient,
    inboundSeq,
    recentInbound: [...recentInbound.keys()],
    outcomes: [...outcomes.entries()],
    queue: queue.map(({ via: _via, orderKey: _orderKey, index: _index, ...req }) => req),
    replyWaiters: [...replyWaiters.entries()],
    nextWaiters,
    receiptRoutes: [...receiptRoutes.entries()],
    slots: [...slots.entries()],
    windows: {
      messages: windows.messages.snapshot(),
      updates: windows.updates.snapshot(),
      statuses: windows.statuses.snapshot(),
      typing: windows.typing.snapshot(),
    },
    markRead: markReadQueue,
    sentIds: [...sentIds.keys()],
    unclaimedSent,
    lastPollStartedAt,
    lastError,
    counters,
    generation,
  };
  await continueAsNew<typeof agentWorkflow>({ ...input, carried: state });
}

function isValidSendRequest(req: SendRequest): boolean {
  return (
    typeof req === 'object' &&
    req !== null &&
    typeof req.requestId === 'string' &&
    req.requestId.length > 0 &&
    typeof req.message === 'object' &&
    req.message !== null &&
    typeof req.message.type === 'string'
  );
}

/** Update validator: a malformed request is rejected before it enters history. */
function validateSendRequest(req: SendRequest): void {
  if (!isValidSendRequest(req)) {
    throw new Error('A send request needs a non-empty requestId and a message with a type');
  }
}
