/**
 * Messages between amsflow's workflows and their callers: the signals, updates and queries, and
 * how a client asks a query again when the activation guard refused it.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentStateView } from './agent';
import type {
  ConversationView,
  ConversationOps,
  Receipt,
  SendOutcome,
  SendRequest,
  SendResult,
  LateMessage,
  RoutedMessage,
  RoutingProof,
} from './conversations';
import type { ApprovalView } from './approvals';
import type { ClientInterceptors } from '@temporalio/client';

/**
 * Signals, updates and queries between amsflow's workflows and their callers, defined once and
 * named for their kind. The string names are part of recorded histories: never rename one.
 * Each argument's schema is beside it in `message-schemas.ts`: handlers parse before they act.
 */

// The agent workflow: what other workflows and clients send it.
/** Out-of-band send through the outbox; resolves to the outcome. Idempotent by `requestId`. */
export const sendUpdate = defineUpdate<SendOutcome, [SendRequest]>('amsflow.send');
/**
 * A conversation's operations (send requests, waits, release, typing, receipt watches), in the
 * order it asked for them; handed over once per workflow task (see `conversations.ts`).
 */
export const opsSignal = defineSignal<[ConversationOps]>('amsflow.ops');
/** Poll now: the human acted (used when idle polling is off, e.g. by the bot test harness). */
export const wakeSignal = defineSignal('amsflow.wake');
/**
 * Resume an agent whose polling a final refusal stopped (a bad token, a 4xx): it polls again at
 * once (`amsflow agent resume <key>`; a starting worker sends it to each agent it serves).
 */
export const resumeSignal = defineSignal<[{ reason?: string } | null]>('amsflow.resume');
/** The agent's state for operators (`amsflow state`). */
export const stateQuery = defineQuery<AgentStateView>('amsflow.state');
/** Where the agent routed an inbound message, by its id (conversations.ts): the proof a conversation asks for. */
export const routedToQuery = defineQuery<RoutingProof | null, [string]>('amsflow.routedTo');

// Conversation workflows: what the agent workflow sends them.
/** The outcome of a send request that asked for it (`notify`). */
export const sendResultSignal = defineSignal<[SendResult]>('amsflow.sendResult');
/** An inbound message routed to a waiting workflow. */
export const inboundSignal = defineSignal<[RoutedMessage]>('amsflow.inbound');
/** A human's answer to a question of the workflow whose wait had already timed out. */
export const lateSignal = defineSignal<[LateMessage]>('amsflow.late');
/** A receipt of a message the workflow sent. */
export const receiptSignal = defineSignal<[Receipt]>('amsflow.receipt');
/**
 * The agent run that started this handler is continuing as new: the handler hands its remaining
 * operations over by signal from now on, not in its result (which would reach a closed run).
 */
export const movingSignal = defineSignal('amsflow.moving');
/** A conversation's state for operators (`amsflow conversations show`). */
export const conversationQuery = defineQuery<ConversationView>('amsflow.conversation');
/** Cancels a conversation from outside: its pending and next waits end as cancelled. */
export const cancelSignal = defineSignal<[{ reason?: string }]>('amsflow.cancel');
/** An approval's state (`amsflow approval list`). Cancel an approval with {@link cancelSignal}. */
export const approvalQuery = defineQuery<ApprovalView>('amsflow.approval');

/**
 * Asking a workflow a query. amsflow's activation guard (workflows/engine/activation-guard.ts)
 * refuses a query that met a run just rebuilt from its history in a way the SDK's core gets
 * wrong; the run is then dropped and rebuilt, so the same query asked again is answered. Every
 * client amsflow makes carries {@link ASK_AGAIN_INTERCEPTORS}, so a plain `handle.query` asks
 * again too; the helpers that take a caller's client ask through {@link askAgainOnRebuild}.
 */

/** How the guard's refusals begin (its two rules: the clock, the query on a rebuilt run). */
export const GUARD_REFUSALS = {
  staleClock: 'stale workflow clock:',
  rebuiltRun: 'query on a rebuilt run:',
} as const;

/** True when `text` (a message, a log field) tells of a refusal of the activation guard. */
export function mentionsGuardRefusal(text: unknown): boolean {
  return typeof text === 'string' && Object.values(GUARD_REFUSALS).some((words) => text.includes(words));
}

/** True when `err` (or the message of what it wraps) is a refusal of the activation guard. */
export function isGuardRefusal(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let at: unknown = err; at instanceof Error && !seen.has(at); at = at.cause) {
    seen.add(at);
    if (mentionsGuardRefusal(at.message)) return true;
  }
  return false;
}

/** Runs `ask` (one query); when the guard refused it, asks once more (the run was rebuilt). */
export async function askAgainOnRebuild<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    if (!isGuardRefusal(err)) throw err;
    return ask();
  }
}

/**
 * Client interceptors that ask a refused query once more: give them to any `Client` that queries
 * amsflow's workflows (`new Client({ connection, interceptors: ASK_AGAIN_INTERCEPTORS })`).
 */
export const ASK_AGAIN_INTERCEPTORS: ClientInterceptors = {
  workflow: [{ query: (input, next) => askAgainOnRebuild(() => next(input)) }],
};
