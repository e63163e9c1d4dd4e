/**
 * Asking a workflow a query. amsflow's activation guard (workflows/engine/activation-guard.ts)
 * refuses a query that met a run just rebuilt from its history in a way the SDK's core gets
 * wrong; the run is then dropped and rebuilt, so the same query asked again is answered. Every
 * client amsflow makes carries {@link ASK_AGAIN_INTERCEPTORS}, so a plain `handle.query` asks
 * again too; the helpers that take a caller's client ask through {@link askAgainOnRebuild}.
 */
import type { ClientInterceptors } from '@temporalio/client';

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
