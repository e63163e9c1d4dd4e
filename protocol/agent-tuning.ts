/**
 * Tuning of the agent workflow: part of its start input (`AgentStartInput.tuning`), set by the
 * worker's configuration and by tests. Every field has a default (`workflows/engine/tuning.ts`).
 */

/** Tuning of the agent workflow. Every field has a default; tests shorten the windows. */
export interface AgentTuning {
  /** Long-poll wait in seconds (spec maximum 25: about 2.4 polls a minute when idle). Default 25. */
  pollTimeoutSeconds?: number;
  /**
   * 0 (default): poll again as soon as a poll ends (long polls). Above 0: after a poll that found
   * nothing, wait for the `wake` signal or this many ms before polling again. The bot test harness
   * uses it with `pollTimeoutSeconds: 0`, so that an idle agent runs no activity and the test
   * server can skip time; it wakes the agent whenever the scripted human acts.
   */
  idlePollMs?: number;
  /**
   * How long one poll activity may go on long-polling while pages come back empty, pacing itself
   * by the updates window, before it returns to the workflow: an idle agent then costs one
   * workflow task per this period instead of one per long poll. 0 returns every empty page.
   * Default 300000 ms (5 minutes). Not used with `idlePollMs`.
   */
  quietPollMs?: number;
  /**
   * After a page of receipts only, the next poll waits up to this long, in proportion to the share
   * of the updates budget already spent, so that the receipts that follow come in one page.
   * Default 4000 ms (60 s / 15: one poll's share of the budget). 0 turns receipt settling off.
   */
  receiptSettleMs?: number;
  /** Polls of the updates window a quiet poll (idle agent) never spends: kept for the workflow's own. Default 2. */
  pollReserve?: number;
  /** A receipt settle shorter than this is skipped (below the server's timer resolution). Default 1000 ms. */
  minSettleMs?: number;
  /** Page size of a poll. Default 50 (the spec's default). */
  pollLimit?: number;
  /** Added to each pacing wait, covering the delay between scheduling and the request. Default 100 ms. */
  pacingMarginMs?: number;
  /** First wait after a 429 without Retry-After; then doubled (5, 10, 20 s). Default 5000 ms. */
  rateLimitBackoffMs?: number;
  /** Backoff bounds after a 503 or an opted-in ambiguous retry. Defaults 500 ms and 30000 ms. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /**
   * A send's retry budget, as attempts with the first included: default 4, the spec's three
   * retries after rejections (429/503). Resends after an ambiguous outcome have a budget of the
   * same size of their own.
   */
  maxSendAttempts?: number;
  /** How long a later message's reply waits for an earlier message's handler to send first. Default 30000 ms. */
  orderingGraceMs?: number;
  /**
   * Continue-as-new after this many history events (or when the server suggests it). Default 1000
   * (runs begun before patch `amsflow-shorter-runs`, 2026-11-28: 4000).
   */
  continueAsNewAfterEvents?: number;
  /**
   * Heartbeat timeout of the poll and send activities: how soon a worker lost mid-request is
   * noticed (the send then counts as ambiguous). Default 10000 ms.
   */
  activityHeartbeatTimeoutMs?: number;
  /**
   * How long reconciliation of an ambiguous send waits for the service's 'sent' receipt before it
   * concludes the message was not accepted: a bound on how long the service may take to accept a
   * request it received. Default 60000 ms.
   */
  reconcileSettleMs?: number;
  /** Bound of the remembered message ids, request ids and receipt routes. Default 1000. */
  recentIdsKept?: number;
  /** Requests the outbox holds at most; past it a request fails at once with `OutboxFull`. Default 500. */
  maxQueuedSends?: number;
  /** Bytes of queued message bodies the outbox holds at most; past it `OutboxFull`. Default 524288. */
  maxQueuedSendBytes?: number;
  /** Registered waits kept at most; past it the oldest is dropped. Default 200. */
  maxWaiters?: number;
  /** Mark-reads pending at most; past it the oldest is dropped (and counted). Default 500. */
  maxPendingMarkRead?: number;
  /** A mark-read failing for this long is given up. Default 3600000 ms (1 hour). */
  markReadGiveUpMs?: number;
  /**
   * A message's read tick rides with the next send (read, then answer); one that no send took
   * within this long after its hand-off (a message with no reply yet) goes by a request of its
   * own. Default 3000 ms.
   */
  markReadGraceMs?: number;
  /** Typing indicators queued at most (newest kept). Default 5. */
  maxQueuedTyping?: number;
  /**
   * A human's new messages (those starting a conversation) taken in per `inboundBudgetWindowMs`;
   * past it, a message is marked read and not handled, and the human is told once per window
   * (a flood would otherwise queue many minutes of replies ahead of approvals and reminders).
   * Answers to a question still reach it. Default 0: every message is taken (dropping what a
   * human wrote is opt-in; 60 suits a chat bot that would rather say so than answer late).
   */
  inboundBudget?: number;
  /** The window of `inboundBudget`. Default 60000 ms. */
  inboundBudgetWindowMs?: number;
}
