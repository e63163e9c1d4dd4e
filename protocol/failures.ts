/**
 * Failure type strings. Only strings survive the trip from an activity to a workflow and from a
 * workflow to its caller (`ApplicationFailure.type`), so every side matches on these constants.
 */

/** What an activity throws (`ApplicationFailure.type`). */
export const ActivityFailureTypes = {
  /** 429 or 503 (or a refused connection): nothing was sent; retry after `retryAfterMs` or a backoff. */
  sendRejected: 'SendRejected',
  /** The outcome of the attempt is unknown; never retried by amsflow unless opted in. */
  sendAmbiguous: 'AmbiguousSend',
  /** 4xx (or a local check): the message is wrong. */
  sendInvalid: 'SendInvalid',
  /** 401/403: the token or the recipient is wrong. */
  sendUnauthorized: 'SendUnauthorized',
  /** A non-send request was rate limited or not accepted (429/503): retry after the hint. */
  rateLimited: 'RateLimited',
  /** The token was refused on a non-send request. */
  unauthorized: 'Unauthorized',
  /** A non-send request was refused as invalid. */
  invalidRequest: 'InvalidRequest',
  /** No client is configured on this worker for the agent key: nothing was sent. */
  unknownAgent: 'UnknownAgent',
  /** A poll ended because a newer poll of the same agent started on its worker (transient). */
  stalePoll: 'StalePoll',
  /** A poll activity that Temporal gave up (its heartbeats unacknowledged) stopped before polling. */
  pollLeaseLost: 'PollLeaseLost',
  /**
   * A poll activity attempt whose worker process ended, given up by a worker on the same machine
   * that saw it end (activities/poll-tickets.ts): nothing of it is open at the service (transient).
   */
  pollWorkerEnded: 'PollWorkerEnded',
} as const;

/** Failures of non-send activities that no retry can cure. */
export const NON_RETRYABLE_REQUEST_FAILURES: readonly string[] = [
  ActivityFailureTypes.unauthorized,
  ActivityFailureTypes.invalidRequest,
  ActivityFailureTypes.unknownAgent,
];

/** Stable failure types of a send, as seen by the workflow that asked for it. */
export const SEND_FAILURE_TYPES = [
  /** The outcome is unknown (500, dropped connection, read timeout, worker died mid-send): not re-sent. */
  'AmbiguousSend',
  /** The service or the local checks refused the message (4xx), or the request itself was malformed. */
  'SendInvalid',
  /**
   * The token was refused (401/403), or no worker holds a client for the agent, or the agent is
   * stopped by a refusal (nothing was sent; `amsflow state` says why): fix the configuration.
   */
  'SendUnauthorized',
  /** Still rate-limited or not accepted (429/503) after every attempt: nothing was sent. */
  'SendRejected',
  /** No recipient is known yet: the human has not written and discovery found none. */
  'NoRecipient',
  /** The agent's outbox holds its maximum of queued requests: nothing was sent; try later. */
  'OutboxFull',
  /** An `onlyWhileWaiting` request (a nudge) whose wait was answered or ended: nothing was sent. */
  'NotWaiting',
] as const;
export type SendFailureType = (typeof SEND_FAILURE_TYPES)[number];

/**
 * What the agent's `amsflow.send` update is refused with while its run is moving on (draining
 * before continue-as-new): nothing entered history, and the same request sent again reaches the
 * next run (`sendThroughOutbox` does so by itself). Without it a steady stream of updates would
 * keep the run from ever finishing its drain.
 */
export const AGENT_MOVING = 'AgentMoving';

/** What `ask`, `waitForMessage` and `waitForReceipt` fail with when their timeout passes. */
export const WAIT_TIMEOUT = 'WaitTimeout';
/** What `ask` and `waitForMessage` fail with once the conversation was cancelled. */
export const CONVERSATION_CANCELLED = 'ConversationCancelled';
/**
 * What a call of the workflow API fails with when one of its arguments or options is wrong (a
 * duration that does not parse, a count that is not a whole number, a text too long, an unknown
 * option): at the call, before anything is sent, and non-retryable, so that the workflow fails
 * once instead of its workflow task being retried forever.
 */
export const INVALID_OPTION = 'InvalidOption';
/** What a workflow using the conversation API outside a handler without `useAgent` fails with. */
export const NO_AGENT_CONTEXT = 'NoAgentContext';
/**
 * What a conversation's send or wait fails with when its agent workflow did not take the request
 * (the agent is not running: never started, or terminated). Nothing was sent.
 */
export const AGENT_UNREACHABLE = 'AgentUnreachable';
